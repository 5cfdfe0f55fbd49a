/** Debouncing keyed by a string: many triggers for one key within `ms` make one call. */

/** The timer functions a debouncer uses (injectable for tests). */
export interface Timers {
    setTimeout(f: () => void, ms: number): unknown;
    clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
    setTimeout: (f, ms) => setTimeout(f, ms),
    clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Calls `fire(key)` once `ms` after the last `trigger(key)`; keys are independent. */
export class Debouncer {
    private readonly pending = new Map<string, unknown>();

    constructor(
        private readonly ms: number,
        private readonly fire: (key: string) => void,
        private readonly timers: Timers = realTimers,
    ) {}

    /** (Re)start the wait for `key`. */
    trigger(key: string): void {
        const old = this.pending.get(key);
        if (old !== undefined) {
            this.timers.clearTimeout(old);
        }
        const handle = this.timers.setTimeout(() => {
            this.pending.delete(key);
            this.fire(key);
        }, this.ms);
        this.pending.set(key, handle);
    }

    /** Keys with a call still to come. */
    pendingKeys(): string[] {
        return [...this.pending.keys()];
    }

    /** Drop every pending call. */
    dispose(): void {
        for (const h of this.pending.values()) {
            this.timers.clearTimeout(h);
        }
        this.pending.clear();
    }
}

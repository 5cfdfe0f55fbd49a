/** The server's state as the status bar shows it, and how client events move it. */

/** Where the server is. `error` keeps the message of the failure. */
export type Status =
    | { kind: "stopped" }
    | { kind: "starting" }
    | { kind: "ready" }
    | { kind: "error"; message: string };

/** What happens to the client. */
export type StatusEvent =
    | { kind: "start" }
    | { kind: "running" }
    | { kind: "stopped" }
    | { kind: "failed"; message: string };

/**
 * The status after `event`. A failure stays visible when the client then stops (the user should
 * see why), and only a new start clears it.
 */
export function nextStatus(current: Status, event: StatusEvent): Status {
    switch (event.kind) {
        case "start":
            return { kind: "starting" };
        case "running":
            return { kind: "ready" };
        case "failed":
            return { kind: "error", message: event.message };
        case "stopped":
            return current.kind === "error" ? current : { kind: "stopped" };
    }
}

/** How a status looks in the status bar. */
export interface StatusView {
    text: string;
    tooltip: string;
    isError: boolean;
}

/** The status bar text (with a codicon), tooltip and colour for `s`. */
export function statusView(s: Status): StatusView {
    const click = "Click to open the zy output.";
    switch (s.kind) {
        case "stopped":
            return { text: "$(circle-slash) zy: stopped", tooltip: `zy-lsp is not running. ${click}`, isError: false };
        case "starting":
            return { text: "$(sync~spin) zy: starting", tooltip: `zy-lsp is starting. ${click}`, isError: false };
        case "ready":
            return { text: "$(check) zy: ready", tooltip: `zy-lsp is running. ${click}`, isError: false };
        case "error":
            return { text: "$(error) zy: error", tooltip: `zy-lsp failed: ${s.message}\n${click}`, isError: true };
    }
}

/**
 * When to restart a server that exited: at most `max` times within `windowMs`; past that the
 * crash is reported and the user restarts by hand (`zy: Restart Server`).
 */
export class RestartPolicy {
    private readonly exits: number[] = [];

    constructor(
        private readonly max = 3,
        private readonly windowMs = 3 * 60 * 1000,
    ) {}

    /** Record an exit at `now` (ms) and say whether to restart. */
    shouldRestart(now: number): boolean {
        this.exits.push(now);
        while (this.exits.length > 0 && now - this.exits[0] > this.windowMs) {
            this.exits.shift();
        }
        return this.exits.length <= this.max;
    }

    /** Forget past exits (after a restart by hand). */
    reset(): void {
        this.exits.length = 0;
    }
}

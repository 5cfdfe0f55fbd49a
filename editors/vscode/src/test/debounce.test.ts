import { test } from "node:test";
import assert from "node:assert/strict";
import { Debouncer, Timers } from "../debounce";

/** A manual clock: timers fire only when the test advances time. */
class FakeTimers implements Timers {
    now = 0;
    private next = 0;
    private readonly due = new Map<number, { at: number; f: () => void }>();
    setTimeout(f: () => void, ms: number): unknown {
        const id = this.next++;
        this.due.set(id, { at: this.now + ms, f });
        return id;
    }
    clearTimeout(handle: unknown): void {
        this.due.delete(handle as number);
    }
    advance(ms: number): void {
        this.now += ms;
        for (const [id, t] of [...this.due].sort((a, b) => a[1].at - b[1].at)) {
            if (t.at <= this.now) {
                this.due.delete(id);
                t.f();
            }
        }
    }
}

test("a burst of triggers for one key fires once, after the last", () => {
    const clock = new FakeTimers();
    const fired: string[] = [];
    const d = new Debouncer(300, (k) => fired.push(`${k}@${clock.now}`), clock);
    d.trigger("a");
    clock.advance(200);
    d.trigger("a");
    clock.advance(200);
    d.trigger("a");
    clock.advance(299);
    assert.deepEqual(fired, []);
    assert.deepEqual(d.pendingKeys(), ["a"]);
    clock.advance(1);
    assert.deepEqual(fired, ["a@700"]);
    assert.deepEqual(d.pendingKeys(), []);
});

test("keys are independent", () => {
    const clock = new FakeTimers();
    const fired: string[] = [];
    const d = new Debouncer(100, (k) => fired.push(`${k}@${clock.now}`), clock);
    d.trigger("a");
    clock.advance(50);
    d.trigger("b");
    clock.advance(50);
    d.trigger("b");
    clock.advance(100);
    assert.deepEqual(fired, ["a@100", "b@200"]);
});

test("dispose drops pending calls", () => {
    const clock = new FakeTimers();
    const fired: string[] = [];
    const d = new Debouncer(100, (k) => fired.push(k), clock);
    d.trigger("a");
    d.dispose();
    clock.advance(1000);
    assert.deepEqual(fired, []);
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { nextStatus, RestartPolicy, Status, StatusEvent, statusView } from "../status";

function run(events: StatusEvent[]): Status[] {
    const seen: Status[] = [];
    let s: Status = { kind: "stopped" };
    for (const e of events) {
        s = nextStatus(s, e);
        seen.push(s);
    }
    return seen;
}

test("start, ready, stop", () => {
    assert.deepEqual(
        run([{ kind: "start" }, { kind: "running" }, { kind: "stopped" }]).map((s) => s.kind),
        ["starting", "ready", "stopped"],
    );
});

test("a failure stays visible through the stop that follows, until a new start", () => {
    const seen = run([
        { kind: "start" },
        { kind: "failed", message: "zy-lsp is not on PATH" },
        { kind: "stopped" },
        { kind: "start" },
        { kind: "running" },
    ]);
    assert.deepEqual(seen, [
        { kind: "starting" },
        { kind: "error", message: "zy-lsp is not on PATH" },
        { kind: "error", message: "zy-lsp is not on PATH" },
        { kind: "starting" },
        { kind: "ready" },
    ]);
});

test("a crash while running is an error", () => {
    const seen = run([{ kind: "start" }, { kind: "running" }, { kind: "failed", message: "exited with code 101" }]);
    assert.deepEqual(seen[2], { kind: "error", message: "exited with code 101" });
});

test("each status has its text, tooltip and colour", () => {
    assert.deepEqual(statusView({ kind: "starting" }), {
        text: "$(sync~spin) zy: starting",
        tooltip: "zy-lsp is starting. Click to open the zy output.",
        isError: false,
    });
    assert.deepEqual(statusView({ kind: "ready" }), {
        text: "$(check) zy: ready",
        tooltip: "zy-lsp is running. Click to open the zy output.",
        isError: false,
    });
    assert.deepEqual(statusView({ kind: "stopped" }), {
        text: "$(circle-slash) zy: stopped",
        tooltip: "zy-lsp is not running. Click to open the zy output.",
        isError: false,
    });
    assert.deepEqual(statusView({ kind: "error", message: "boom" }), {
        text: "$(error) zy: error",
        tooltip: "zy-lsp failed: boom\nClick to open the zy output.",
        isError: true,
    });
});

test("a crashing server is restarted three times in three minutes, then left stopped", () => {
    const p = new RestartPolicy();
    assert.deepEqual([0, 1000, 2000, 3000].map((t) => p.shouldRestart(t)), [true, true, true, false]);
    // Once the early exits are older than the window, restarts are allowed again.
    assert.equal(p.shouldRestart(182_500), true);
    p.reset();
    assert.deepEqual([0, 1, 2].map((t) => p.shouldRestart(t)), [true, true, true]);
});

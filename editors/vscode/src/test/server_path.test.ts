import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveServerPath, SearchEnv } from "../server_path";

function env(executables: string[], pathVar = "/usr/bin:/opt/zy/bin", platform = "linux"): SearchEnv {
    return { pathVar, home: "/home/u", platform, isExecutable: (p) => executables.includes(p) };
}

test("no setting: zy-lsp on PATH, first directory first", () => {
    assert.deepEqual(resolveServerPath(undefined, env(["/opt/zy/bin/zy-lsp"])), { ok: true, path: "/opt/zy/bin/zy-lsp" });
    assert.deepEqual(resolveServerPath("", env(["/usr/bin/zy-lsp", "/opt/zy/bin/zy-lsp"])), { ok: true, path: "/usr/bin/zy-lsp" });
});

test("no setting and nothing on PATH: a message saying how to fix it", () => {
    assert.deepEqual(resolveServerPath("  ", env([])), {
        ok: false,
        message: "zy.server.path is not set and zy-lsp is not on PATH: build it with `cargo build -p zy-lsp` and set zy.server.path",
    });
    assert.deepEqual(resolveServerPath(undefined, env(["/usr/bin/zy-lsp"], "")).ok, false);
});

test("an absolute setting must be an executable", () => {
    assert.deepEqual(resolveServerPath("/w/target/debug/zy-lsp", env(["/w/target/debug/zy-lsp"])), {
        ok: true,
        path: "/w/target/debug/zy-lsp",
    });
    assert.deepEqual(resolveServerPath("/w/zy-lsp", env(["/usr/bin/zy-lsp"])), {
        ok: false,
        message: 'zy.server.path "/w/zy-lsp" is not an executable file',
    });
});

test("~/ expands to the home directory; relative paths are refused", () => {
    assert.deepEqual(resolveServerPath("~/bin/zy-lsp", env(["/home/u/bin/zy-lsp"])), { ok: true, path: "/home/u/bin/zy-lsp" });
    assert.deepEqual(resolveServerPath("target/debug/zy-lsp", env([])), {
        ok: false,
        message: 'zy.server.path must be absolute or start with ~/, not "target/debug/zy-lsp"',
    });
});

test("a bare name is searched on PATH", () => {
    assert.deepEqual(resolveServerPath("zy-lsp-dev", env(["/opt/zy/bin/zy-lsp-dev"])), {
        ok: true,
        path: "/opt/zy/bin/zy-lsp-dev",
    });
    assert.deepEqual(resolveServerPath("zy-lsp-dev", env([])), {
        ok: false,
        message:
            'zy.server.path is "zy-lsp-dev" and zy-lsp-dev is not on PATH: build it with `cargo build -p zy-lsp` and set zy.server.path',
    });
});

test("Windows: PATH is split on ; and .exe is tried first", () => {
    const e = env(["C:/zy/zy-lsp.exe"], "C:/tools;C:/zy", "win32");
    const r = resolveServerPath(undefined, e);
    assert.equal(r.ok, true);
    assert.match(r.ok ? r.path : "", /zy-lsp\.exe$/);
});

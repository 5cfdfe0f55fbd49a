/** Finding the `zy-lsp` executable: the `zy.server.path` setting first, then PATH. */
import * as path from "path";

/** The environment the search looks at (injectable for tests). */
export interface SearchEnv {
    /** The PATH variable, if any. */
    pathVar: string | undefined;
    /** The home directory, for a setting starting with `~/`. */
    home: string;
    /** `process.platform`. */
    platform: string;
    /** Whether `p` is an executable file. */
    isExecutable(p: string): boolean;
}

/** The executable's name without extension. */
export const SERVER_NAME = "zy-lsp";

/** The server found, or why none was. */
export type Resolved = { ok: true; path: string } | { ok: false; message: string };

/**
 * Resolve the server executable. A setting that is a bare name is looked up on PATH; a path
 * (absolute, or starting with `~/`) must be an executable file. No setting: `zy-lsp` on PATH.
 */
export function resolveServerPath(setting: string | undefined, env: SearchEnv): Resolved {
    const configured = setting?.trim();
    if (configured) {
        if (!configured.includes("/") && !configured.includes("\\")) {
            return searchPath(configured, env, `zy.server.path is "${configured}"`);
        }
        const full = configured.startsWith("~/") ? path.join(env.home, configured.slice(2)) : configured;
        if (!path.isAbsolute(full)) {
            return { ok: false, message: `zy.server.path must be absolute or start with ~/, not "${configured}"` };
        }
        return env.isExecutable(full)
            ? { ok: true, path: full }
            : { ok: false, message: `zy.server.path "${full}" is not an executable file` };
    }
    return searchPath(SERVER_NAME, env, "zy.server.path is not set");
}

function searchPath(name: string, env: SearchEnv, why: string): Resolved {
    const names = env.platform === "win32" ? [`${name}.exe`, name] : [name];
    const sep = env.platform === "win32" ? ";" : ":";
    for (const dir of (env.pathVar ?? "").split(sep)) {
        if (!dir) {
            continue;
        }
        for (const n of names) {
            const candidate = path.join(dir, n);
            if (env.isExecutable(candidate)) {
                return { ok: true, path: candidate };
            }
        }
    }
    return {
        ok: false,
        message: `${why} and ${name} is not on PATH: build it with \`cargo build -p zy-lsp\` and set zy.server.path`,
    };
}

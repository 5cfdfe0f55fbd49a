/**
 * Building and checking command arguments. Code lenses send JSON objects; the command palette
 * sends nothing, and the active editor supplies the document and cursor instead.
 */
import { GradientArgs, GradientResult, Position, ViewArgs } from "./lsp_ext";

/** The active editor as command building needs it. */
export interface Cursor {
    uri: string;
    position: Position;
}

/** Arguments of a view command: a lens's argument object, or else the cursor; or why neither works. */
export function viewArgs(arg: unknown, cursor: Cursor | undefined): ViewArgs | string {
    if (arg !== undefined && arg !== null) {
        return isViewArgs(arg) ? arg : `expected { uri, position } as the argument, got ${show(arg)}`;
    }
    if (!cursor) {
        return "open a Julia file and put the cursor inside a function";
    }
    return { uri: cursor.uri, position: cursor.position };
}

/** Whether `x` is a well-formed `{ uri, position }`. */
export function isViewArgs(x: unknown): x is ViewArgs {
    return isObject(x) && typeof x.uri === "string" && isPosition(x.position);
}

/** Whether `x` is a well-formed `{ uri, function }`. */
export function isGradientArgs(x: unknown): x is GradientArgs {
    return isObject(x) && typeof x.uri === "string" && typeof x.function === "string";
}

/** A code lens as the server sends it (only the parts the gradient command reads). */
export interface LensLike {
    range: { start: Position };
    command?: { command: string; arguments?: unknown[] };
}

/**
 * The `zy.computeGradient` arguments for the cursor: those of the gradient lens of the last
 * function starting at or above the cursor line (the server puts one on each function).
 */
export function gradientArgsAt(lenses: readonly LensLike[], line: number): GradientArgs | string {
    let best: { line: number; args: GradientArgs } | undefined;
    for (const lens of lenses) {
        const args = lens.command?.arguments?.[0];
        if (lens.command?.command !== "zy.computeGradient" || !isGradientArgs(args)) {
            continue;
        }
        const l = lens.range.start.line;
        if (l <= line && (!best || l >= best.line)) {
            best = { line: l, args };
        }
    }
    return best ? best.args : "no function with a gradient lens at or above the cursor";
}

/** The gradient command's result, checked, or a message saying what the server sent instead. */
export function parseGradientResult(x: unknown): GradientResult | string {
    if (
        isObject(x) &&
        typeof x.call === "string" &&
        typeof x.value === "string" &&
        typeof x.gradient === "string" &&
        typeof x.micros === "number" &&
        (x.nonfinite === undefined || typeof x.nonfinite === "string")
    ) {
        const r: GradientResult = { call: x.call, value: x.value, gradient: x.gradient, micros: x.micros };
        if (typeof x.nonfinite === "string") {
            r.nonfinite = x.nonfinite;
        }
        return r;
    }
    return `unexpected result from zy.computeGradient: ${show(x)}`;
}

/** One line for a gradient: `pow(2.0, 3) = 8.0, ∇ = (12.0, nothing) in 0.042 ms`. */
export function formatGradient(r: GradientResult): string {
    const ms = r.micros / 1000;
    const time = ms >= 1 ? `${ms.toFixed(1)} ms` : `${r.micros.toFixed(0)} µs`;
    const origin = r.nonfinite ? `; not finite: ${r.nonfinite}` : "";
    return `${r.call} = ${r.value}, ∇ = ${r.gradient} (${time})${origin}`;
}

function isPosition(x: unknown): x is Position {
    return (
        isObject(x) &&
        Number.isInteger(x.line) &&
        Number.isInteger(x.character) &&
        (x.line as number) >= 0 &&
        (x.character as number) >= 0
    );
}

function isObject(x: unknown): x is Record<string, unknown> {
    return typeof x === "object" && x !== null && !Array.isArray(x);
}

function show(x: unknown): string {
    const s = JSON.stringify(x) ?? String(x);
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

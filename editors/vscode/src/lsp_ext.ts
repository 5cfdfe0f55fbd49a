/**
 * The custom part of the zy-lsp protocol, mirroring docs/lsp.md. Everything here is types and
 * constants: no VS Code API, so unit tests and the extension share it.
 */
import { RequestType } from "vscode-languageserver-protocol";

/** A zero-based LSP position (UTF-16 code units). */
export interface Position {
    line: number;
    character: number;
}

/** The stages `zy/viewIr` can show. `adjoint` is forward then pullback; `dot` is Graphviz text. */
export const STAGES = ["primal", "typed", "forward", "pullback", "adjoint", "pushforward", "clif", "dot"] as const;

/** One stage of `zy/viewIr`. */
export type Stage = (typeof STAGES)[number];

/** Whether `s` names a stage of `zy/viewIr`. */
export function isStage(s: string): s is Stage {
    return (STAGES as readonly string[]).includes(s);
}

/** Params of `zy/viewIr`: the function enclosing `position` in the document, at `stage`. */
export interface ViewIrParams {
    textDocument: { uri: string };
    position: Position;
    stage: Stage;
}

/** Result of `zy/viewIr`. */
export interface ViewIrResult {
    text: string;
}

/** `zy/viewIr`: the IR of one function at one stage; an error response says why it is unavailable. */
export const viewIr = new RequestType<ViewIrParams, ViewIrResult, void>("zy/viewIr");

/** Argument of the client-side view commands (`zy.showAdjointIr`, ...), as code lenses send it. */
export interface ViewArgs {
    uri: string;
    position: Position;
}

/** Argument of the server-side command `zy.computeGradient`. */
export interface GradientArgs {
    uri: string;
    function: string;
}

/** Result of `zy.computeGradient`: the `# zy: at` call, its value and gradient, and the time. */
export interface GradientResult {
    call: string;
    value: string;
    gradient: string;
    micros: number;
    /** Where a non-finite gradient came from (`path:line:col: what happened`), if it is one. */
    nonfinite?: string;
}

/** The server-side command that computes a gradient. */
export const COMPUTE_GRADIENT = "zy.computeGradient";

/** Client-side commands that open a view, and the stage each asks `zy/viewIr` for. */
export const VIEW_COMMANDS: Readonly<Record<string, Stage>> = {
    "zy.showAdjointIr": "adjoint",
    "zy.showPushforwardIr": "pushforward",
    "zy.showSsa": "typed",
    "zy.showClif": "clif",
    "zy.showControlFlow": "dot",
};

/** The scheme of zy's bundled library files (`zy-prelude:/Base.jl`), which go-to-definition reaches. */
export const PRELUDE_SCHEME = "zy-prelude";

/** Params of `zy/preludeText`. */
export interface PreludeTextParams {
    uri: string;
}

/** Result of `zy/preludeText`. */
export interface PreludeTextResult {
    text: string;
}

/** `zy/preludeText`: the text of a prelude file (it never changes while the server runs). */
export const preludeText = new RequestType<PreludeTextParams, PreludeTextResult, void>("zy/preludeText");

/**
 * URIs of the read-only IR documents (scheme `zy-ir`). The query carries everything needed to ask
 * the server again (source URI, position, stage); the path is only the tab's label.
 */
import { isStage, Position, Stage } from "./lsp_ext";

/** The URI scheme of IR views. */
export const IR_SCHEME = "zy-ir";

/** What an IR document shows: one stage of the function enclosing `position` in `source`. */
export interface IrTarget {
    source: string;
    position: Position;
    stage: Stage;
}

/** The path and query of the IR document for `target`, labelled with `label` (e.g. a function name). */
export function irUriParts(target: IrTarget, label: string): { path: string; query: string } {
    const query = new URLSearchParams({
        stage: target.stage,
        uri: target.source,
        line: String(target.position.line),
        character: String(target.position.character),
    });
    const safe = label.replace(/[^\p{L}\p{N}_!.:-]/gu, "_") || "ir";
    return { path: `/${safe}.${target.stage}.zyir`, query: query.toString() };
}

/** The target encoded in an IR URI's query, or a message saying what is wrong with it. */
export function parseIrQuery(query: string): IrTarget | string {
    const q = new URLSearchParams(query);
    const stage = q.get("stage");
    const source = q.get("uri");
    const line = natural(q.get("line"));
    const character = natural(q.get("character"));
    if (stage === null || !isStage(stage)) {
        return `unknown IR stage ${JSON.stringify(stage)}`;
    }
    if (!source) {
        return "the IR view names no source document";
    }
    if (line === undefined || character === undefined) {
        return "the IR view names no valid position";
    }
    return { source, position: { line, character }, stage };
}

function natural(s: string | null): number | undefined {
    if (s === null || !/^\d{1,9}$/.test(s)) {
        return undefined;
    }
    return Number(s);
}

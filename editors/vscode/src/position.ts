/** Keeping a position on the same text while the document is edited. */
import { Position } from "./lsp_ext";

/** One edit of a document: `range` replaced by `text` (as VS Code reports content changes). */
export interface Edit {
    range: { start: Position; end: Position };
    text: string;
}

/**
 * Where `pos` is after `edit`. Text before it shifts it; text after it leaves it; an edit that
 * covers it moves it to the edit's start.
 */
export function shiftPosition(pos: Position, edit: Edit): Position {
    const { start, end } = edit.range;
    if (before(pos, start)) {
        return pos;
    }
    if (before(pos, end)) {
        return start;
    }
    const lines = edit.text.split(/\r\n|\r|\n/);
    const added = lines.length - 1;
    const lastLen = lines[lines.length - 1].length;
    const line = pos.line - (end.line - start.line) + added;
    if (pos.line !== end.line) {
        return { line, character: pos.character };
    }
    const base = added === 0 ? start.character + lastLen : lastLen;
    return { line, character: base + (pos.character - end.character) };
}

function before(a: Position, b: Position): boolean {
    return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/**
 * Lens arguments that follow edits. VS Code keeps a lens's command (and its argument objects)
 * until it asks the server again, which it may not do after every edit; a `{ uri, position }`
 * argument would then point at the text that used to be there. The arguments of the lenses last
 * sent for a document are kept here and shifted in place by each edit, so a click always names
 * the function it is drawn over.
 */
import { isViewArgs } from "./args";
import { ViewArgs } from "./lsp_ext";
import { Edit, shiftPosition } from "./position";

/** The position-carrying lens arguments of each document, by URI string. */
export class LensPositions {
    private readonly byUri = new Map<string, ViewArgs[]>();

    /** Follow the `{ uri, position }` objects among `args` (the lenses' first arguments) of `uri`. */
    track(uri: string, args: readonly unknown[]): void {
        this.byUri.set(uri, args.filter(isViewArgs));
    }

    /** Shift every followed position of `uri` by `edits`, applied in order. */
    edit(uri: string, edits: readonly Edit[]): void {
        for (const arg of this.byUri.get(uri) ?? []) {
            for (const e of edits) {
                arg.position = shiftPosition(arg.position, e);
            }
        }
    }

    /** Stop following `uri` (closed). */
    forget(uri: string): void {
        this.byUri.delete(uri);
    }
}

/**
 * zy's prelude (the Julia library bundled in the server) as read-only documents: go-to-definition
 * on a library call opens `zy-prelude:/Base.jl`, whose text the server gives.
 */
import * as vscode from "vscode";
import { Ctx, errorMessage } from "./ctx";
import { preludeText } from "./lsp_ext";

/** The content provider of `zy-prelude` documents. */
export class PreludeDocuments implements vscode.TextDocumentContentProvider {
    constructor(private readonly ctx: Ctx) {}

    async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
        const client = this.ctx.clientIfAny();
        if (!client?.isRunning()) {
            return "# zy-lsp is not running: see the zy output, or run 'zy: Restart Server'\n";
        }
        try {
            const result = await client.sendRequest(preludeText, { uri: uri.toString() }, token);
            return result.text;
        } catch (e) {
            return `# ${uri.toString()} unavailable: ${errorMessage(e)}\n`;
        }
    }
}

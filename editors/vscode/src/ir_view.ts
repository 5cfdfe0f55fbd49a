/**
 * IR views: read-only virtual documents (scheme `zy-ir`) holding one stage of one function, opened
 * beside the source and refreshed (debounced) while the source is edited.
 */
import * as vscode from "vscode";
import { Ctx, errorMessage } from "./ctx";
import { Debouncer } from "./debounce";
import { IR_SCHEME, irUriParts, IrTarget, parseIrQuery } from "./ir_uri";
import { viewIr } from "./lsp_ext";
import { shiftPosition } from "./position";

/** How long the source must be quiet before open views ask the server again. */
export const REFRESH_MS = 300;

/** The content provider of `zy-ir` documents, which also keeps them up to date. */
export class IrDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
    private readonly changed = new vscode.EventEmitter<vscode.Uri>();
    /** Fires when a view's text should be fetched again. */
    readonly onDidChange = this.changed.event;
    /** Open views by URI string; the target's position follows edits of the source. */
    private readonly views = new Map<string, { uri: vscode.Uri; target: IrTarget }>();
    private readonly debouncer = new Debouncer(REFRESH_MS, (source) => this.refreshSource(source));
    private readonly subscriptions: vscode.Disposable[];

    constructor(private readonly ctx: Ctx) {
        this.subscriptions = [
            vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e)),
            vscode.workspace.onDidCloseTextDocument((doc) => this.views.delete(doc.uri.toString())),
            ctx.onReady(() => this.views.forEach((view) => this.changed.fire(view.uri))),
        ];
    }

    /** Open (or refresh and reveal) the view of `target` beside the active editor. */
    async open(target: IrTarget, label: string): Promise<void> {
        const uri = vscode.Uri.from({ scheme: IR_SCHEME, ...irUriParts(target, label) });
        const key = uri.toString();
        const known = this.views.has(key);
        this.views.set(key, { uri, target });
        if (known) {
            this.changed.fire(uri);
        }
        const doc = await vscode.workspace.openTextDocument(uri);
        await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
    }

    async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
        const key = uri.toString();
        let view = this.views.get(key);
        if (!view) {
            const parsed = parseIrQuery(uri.query);
            if (typeof parsed === "string") {
                return `# ${parsed}\n`;
            }
            view = { uri, target: parsed };
            this.views.set(key, view);
        }
        const client = this.ctx.clientIfAny();
        if (!client?.isRunning()) {
            return "# zy-lsp is not running: see the zy output, or run 'zy: Restart Server'\n";
        }
        const { source, position, stage } = view.target;
        try {
            const result = await client.sendRequest(viewIr, { textDocument: { uri: source }, position, stage }, token);
            return result.text;
        } catch (e) {
            return `# ${stage} unavailable: ${errorMessage(e)}\n`;
        }
    }

    dispose(): void {
        this.debouncer.dispose();
        this.subscriptions.forEach((d) => d.dispose());
        this.changed.dispose();
    }

    private onEdit(e: vscode.TextDocumentChangeEvent): void {
        const source = e.document.uri.toString();
        let affected = false;
        for (const view of this.views.values()) {
            if (view.target.source !== source) {
                continue;
            }
            for (const change of e.contentChanges) {
                view.target.position = shiftPosition(view.target.position, change);
            }
            affected = true;
        }
        if (affected) {
            this.debouncer.trigger(source);
        }
    }

    private refreshSource(source: string): void {
        for (const view of this.views.values()) {
            if (view.target.source === source) {
                this.changed.fire(view.uri);
            }
        }
    }
}

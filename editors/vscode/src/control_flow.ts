/**
 * "zy: Show Control Flow": one webview beside the source showing the primal and adjoint CFGs of a
 * function (the `dot` stage laid out by the bundled Graphviz), redrawn while the source is edited.
 */
import * as vscode from "vscode";
import { Ctx, errorMessage } from "./ctx";
import { Debouncer } from "./debounce";
import { IrTarget } from "./ir_uri";
import { REFRESH_MS } from "./ir_view";
import { viewIr } from "./lsp_ext";
import { shiftPosition } from "./position";
import { controlFlowHtml, Picture, renderDot } from "./render";

/** The control-flow webview (at most one, reused for each function shown). */
export class ControlFlowView implements vscode.Disposable {
    private panel: vscode.WebviewPanel | undefined;
    private shown: { target: IrTarget; label: string } | undefined;
    /** Bumped per refresh so a slow answer never overwrites a newer one. */
    private generation = 0;
    private readonly debouncer = new Debouncer(REFRESH_MS, () => void this.refresh());
    private readonly subscriptions: vscode.Disposable[];

    constructor(private readonly ctx: Ctx) {
        this.subscriptions = [
            vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e)),
            ctx.onReady(() => void this.refresh()),
        ];
    }

    /** Show the control flow of the function at `target` (its stage is ignored: always `dot`). */
    async show(target: IrTarget, label: string): Promise<void> {
        this.shown = { target: { ...target, stage: "dot" }, label };
        if (!this.panel) {
            this.panel = vscode.window.createWebviewPanel(
                "zy.controlFlow",
                "",
                { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
                { enableScripts: false, localResourceRoots: [] },
            );
            this.panel.onDidDispose(() => {
                this.panel = undefined;
                this.shown = undefined;
            });
        } else {
            this.panel.reveal(vscode.ViewColumn.Beside, true);
        }
        await this.refresh();
    }

    dispose(): void {
        this.debouncer.dispose();
        this.subscriptions.forEach((d) => d.dispose());
        this.panel?.dispose();
    }

    private async refresh(): Promise<void> {
        const { panel, shown } = this;
        if (!panel || !shown) {
            return;
        }
        const generation = ++this.generation;
        const title = `Control flow: ${shown.label}`;
        const picture = await this.picture(shown.target);
        if (generation === this.generation && this.panel === panel) {
            panel.title = title;
            panel.webview.html = controlFlowHtml(title, picture);
        }
    }

    private async picture(target: IrTarget): Promise<Picture> {
        const client = this.ctx.clientIfAny();
        if (!client?.isRunning()) {
            return { message: "zy-lsp is not running: see the zy output, or run 'zy: Restart Server'" };
        }
        let dot: string;
        try {
            const params = { textDocument: { uri: target.source }, position: target.position, stage: target.stage };
            dot = (await client.sendRequest(viewIr, params)).text;
        } catch (e) {
            return { message: `control flow unavailable: ${errorMessage(e)}` };
        }
        const r = await renderDot(dot);
        return r.ok ? { svg: r.svg } : { message: `Graphviz could not lay out the server's graph:\n${r.message}` };
    }

    private onEdit(e: vscode.TextDocumentChangeEvent): void {
        const shown = this.shown;
        if (!shown || e.document.uri.toString() !== shown.target.source) {
            return;
        }
        for (const change of e.contentChanges) {
            shown.target.position = shiftPosition(shown.target.position, change);
        }
        this.debouncer.trigger(shown.target.source);
    }
}

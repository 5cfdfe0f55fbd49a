/**
 * The zy extension: a thin client of `zy-lsp` for Julia files, with IR views, the control-flow
 * picture and gradient commands on top of the protocol in docs/lsp.md.
 */
import * as vscode from "vscode";
import { middleware, refreshLenses, registerCommands } from "./commands";
import { ControlFlowView } from "./control_flow";
import { Ctx } from "./ctx";
import { IR_SCHEME } from "./ir_uri";
import { IrDocuments } from "./ir_view";
import { LensPositions } from "./lens_positions";
import { PRELUDE_SCHEME } from "./lsp_ext";
import { PreludeDocuments } from "./prelude_docs";

let ctx: Ctx | undefined;

/** Start the server and register the views and commands. */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
    // The middleware needs the client, which the context creates: it reads it when called.
    const lensPositions = new LensPositions();
    const c: Ctx = new Ctx(middleware(() => c.clientIfAny(), lensPositions));
    ctx = c;
    const irDocs = new IrDocuments(c);
    const controlFlow = new ControlFlowView(c);
    context.subscriptions.push(
        c,
        irDocs,
        controlFlow,
        vscode.workspace.registerTextDocumentContentProvider(IR_SCHEME, irDocs),
        vscode.workspace.registerTextDocumentContentProvider(PRELUDE_SCHEME, new PreludeDocuments(c)),
        ...registerCommands(c, irDocs, controlFlow),
        vscode.workspace.onDidChangeTextDocument((e) => lensPositions.edit(e.document.uri.toString(), e.contentChanges)),
        vscode.workspace.onDidCloseTextDocument((doc) => lensPositions.forget(doc.uri.toString())),
        vscode.workspace.onDidChangeConfiguration((e) => {
            if (e.affectsConfiguration("zy.server.path")) {
                void c.restart();
            } else if (e.affectsConfiguration("zy.lens.enable")) {
                refreshLenses(c);
            }
        }),
    );
    await c.start();
}

/** Stop the server. */
export async function deactivate(): Promise<void> {
    await ctx?.stop();
    ctx = undefined;
}

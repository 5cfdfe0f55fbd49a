/** The extension's commands, and the middleware that shows a gradient when a lens computes one. */
import * as path from "path";
import * as vscode from "vscode";
import {
    CodeLensRequest,
    CodeLensResolveRequest,
    ExecuteCommandRequest,
    LanguageClient,
    Middleware,
} from "vscode-languageclient/node";
import { Cursor, formatGradient, gradientArgsAt, parseGradientResult, viewArgs } from "./args";
import { ControlFlowView } from "./control_flow";
import { Ctx, errorMessage, SHOW_OUTPUT } from "./ctx";
import { IrDocuments } from "./ir_view";
import { LensPositions } from "./lens_positions";
import { COMPUTE_GRADIENT, GradientArgs, Stage, VIEW_COMMANDS } from "./lsp_ext";

/** The palette command that computes the gradient of the function at the cursor. */
export const COMPUTE_GRADIENT_AT_CURSOR = "zy.computeGradientAtCursor";

/**
 * Middleware for the client: every `zy.computeGradient` (from a lens or the palette) shows its
 * result or its failure once (the client's generic "request failed" notification is bypassed);
 * lenses are hidden when `zy.lens.enable` is off, and their position arguments follow edits.
 */
export function middleware(client: () => LanguageClient | undefined, lensPositions: LensPositions): Middleware {
    return {
        executeCommand: async (command, args, next) => {
            const c = client();
            if (command !== COMPUTE_GRADIENT || !c) {
                return next(command, args);
            }
            return showGradient(() => executeOnServer(c, args));
        },
        provideCodeLenses: async (document, token, next) => {
            if (!vscode.workspace.getConfiguration("zy").get<boolean>("lens.enable", true)) {
                return [];
            }
            const lenses = (await next(document, token)) ?? [];
            lensPositions.track(
                document.uri.toString(),
                lenses.map((l) => l.command?.arguments?.[0]),
            );
            return lenses;
        },
    };
}

/** Register every command; the returned disposables unregister them. */
export function registerCommands(ctx: Ctx, irDocs: IrDocuments, controlFlow: ControlFlowView): vscode.Disposable[] {
    const views = Object.entries(VIEW_COMMANDS).map(([id, stage]) =>
        vscode.commands.registerCommand(id, (arg?: unknown) => showView(ctx, irDocs, controlFlow, stage, arg)),
    );
    return [
        ...views,
        vscode.commands.registerCommand(COMPUTE_GRADIENT_AT_CURSOR, () => computeGradientAtCursor(ctx)),
        vscode.commands.registerCommand("zy.restartServer", () => ctx.restart()),
        vscode.commands.registerCommand(SHOW_OUTPUT, () => ctx.output.show(true)),
    ];
}

/** Ask VS Code for the lenses of every visible Julia editor again (after `zy.lens.enable` changed). */
export function refreshLenses(ctx: Ctx): void {
    const feature = ctx.clientIfAny()?.getFeature(CodeLensRequest.method);
    for (const editor of vscode.window.visibleTextEditors) {
        feature?.getProvider(editor.document)?.onDidChangeCodeLensEmitter.fire();
    }
}

async function showView(ctx: Ctx, irDocs: IrDocuments, controlFlow: ControlFlowView, stage: Stage, arg: unknown) {
    const args = viewArgs(arg, cursor());
    if (typeof args === "string") {
        void vscode.window.showErrorMessage(`zy: ${args}`);
        return;
    }
    const client = ctx.client();
    if (!client) {
        return;
    }
    const found = await gradientArgsNear(client, args.uri, args.position.line);
    const label = typeof found === "string" ? `${path.basename(args.uri)}:${args.position.line + 1}` : found.function;
    const target = { source: args.uri, position: args.position, stage };
    await (stage === "dot" ? controlFlow.show(target, label) : irDocs.open(target, label));
}

async function computeGradientAtCursor(ctx: Ctx): Promise<void> {
    const at = cursor();
    const client = at && ctx.client();
    if (!at || !client) {
        if (!at) {
            void vscode.window.showErrorMessage("zy: open a Julia file and put the cursor inside a function");
        }
        return;
    }
    const args = await gradientArgsNear(client, at.uri, at.position.line);
    if (typeof args === "string") {
        void vscode.window.showErrorMessage(`zy: ${args}`);
        return;
    }
    // The client registers the server's commands; go through it so the middleware shows the
    // result. A server that does not advertise the command is asked directly.
    if ((await vscode.commands.getCommands(true)).includes(COMPUTE_GRADIENT)) {
        await vscode.commands.executeCommand(COMPUTE_GRADIENT, args);
    } else {
        await showGradient(() => executeOnServer(client, [args]));
    }
}

function executeOnServer(client: LanguageClient, args: unknown[]): Promise<unknown> {
    return client.sendRequest(ExecuteCommandRequest.type, { command: COMPUTE_GRADIENT, arguments: args });
}

/** Run a gradient request and show its result (or failure) as a notification. */
async function showGradient(run: () => Promise<unknown>): Promise<unknown> {
    try {
        const result = await run();
        const parsed = parseGradientResult(result);
        if (typeof parsed === "string") {
            void vscode.window.showErrorMessage(`zy: ${parsed}`);
        } else {
            void vscode.window.showInformationMessage(`zy: ${formatGradient(parsed)}`);
        }
        return result;
    } catch (e) {
        void vscode.window.showErrorMessage(`zy: gradient failed: ${errorMessage(e)}`);
        return undefined;
    }
}

/** The gradient arguments of the function around `line`, from the server's code lenses. */
async function gradientArgsNear(client: LanguageClient, uri: string, line: number): Promise<GradientArgs | string> {
    try {
        const lenses = (await client.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
        // A server may send lenses without commands and fill them in on resolve.
        const resolved = await Promise.all(
            lenses.map((l) => (l.command ? l : client.sendRequest(CodeLensResolveRequest.type, l))),
        );
        return gradientArgsAt(resolved, line);
    } catch (e) {
        return `could not ask zy-lsp for the functions in this file: ${errorMessage(e)}`;
    }
}

function cursor(): Cursor | undefined {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "julia") {
        return undefined;
    }
    const p = editor.selection.active;
    return { uri: editor.document.uri.toString(), position: { line: p.line, character: p.character } };
}

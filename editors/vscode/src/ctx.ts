/**
 * The extension's state: the output channel, the status bar item, and the language client's
 * life (start, crash handling, restart). Commands reach the server through `Ctx.client`.
 */
import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import {
    CloseAction,
    ErrorAction,
    LanguageClient,
    LanguageClientOptions,
    Middleware,
    ServerOptions,
    State,
} from "vscode-languageclient/node";
import { resolveServerPath } from "./server_path";
import { nextStatus, RestartPolicy, Status, StatusEvent, statusView } from "./status";

/** The id of the command the status bar item runs. */
export const SHOW_OUTPUT = "zy.showOutput";

/** The extension's long-lived state. */
export class Ctx implements vscode.Disposable {
    /** The zy output channel (the client's log, and the server's stderr). */
    readonly output: vscode.OutputChannel;
    private readonly statusItem: vscode.StatusBarItem;
    private status: Status = { kind: "stopped" };
    private current: LanguageClient | undefined;
    private stateListener: vscode.Disposable | undefined;
    private readonly restarts = new RestartPolicy();
    private readonly ready = new vscode.EventEmitter<void>();
    /** Fires each time the server becomes ready (first start, restarts): views fetch again. */
    readonly onReady = this.ready.event;

    constructor(private readonly middleware: Middleware) {
        this.output = vscode.window.createOutputChannel("zy");
        this.statusItem = vscode.window.createStatusBarItem("zy.status", vscode.StatusBarAlignment.Left);
        this.statusItem.name = "zy language server";
        this.statusItem.command = SHOW_OUTPUT;
        this.render();
        this.statusItem.show();
    }

    /** The running client, or undefined (after telling the user why) when there is none. */
    client(): LanguageClient | undefined {
        if (this.current?.state === State.Running) {
            return this.current;
        }
        const why = this.status.kind === "error" ? `: ${this.status.message}` : "";
        void vscode.window.showErrorMessage(`zy-lsp is ${this.status.kind}${why}`);
        return undefined;
    }

    /** The client whatever its state (for middleware that runs while it works). */
    clientIfAny(): LanguageClient | undefined {
        return this.current;
    }

    /** Start the server named by the settings. Failures show in the status bar, never throw. */
    async start(): Promise<void> {
        this.move({ kind: "start" });
        const config = vscode.workspace.getConfiguration("zy");
        const resolved = resolveServerPath(config.get<string>("server.path"), {
            pathVar: process.env.PATH,
            home: os.homedir(),
            platform: process.platform,
            isExecutable,
        });
        if (!resolved.ok) {
            this.output.appendLine(resolved.message);
            this.move({ kind: "failed", message: resolved.message });
            return;
        }
        this.output.appendLine(`starting ${resolved.path}`);
        const client = this.createClient(resolved.path);
        this.current = client;
        try {
            await client.start();
        } catch (e) {
            // The client may have been replaced (a restart) while this start was pending.
            if (this.current === client) {
                this.move({ kind: "failed", message: errorMessage(e) });
            }
        }
    }

    /** Stop the server (if any) and start it again, forgetting past crashes. */
    async restart(): Promise<void> {
        this.restarts.reset();
        await this.stop();
        await this.start();
    }

    /** Stop the server if one runs. */
    async stop(): Promise<void> {
        const client = this.current;
        this.current = undefined;
        this.stateListener?.dispose();
        this.stateListener = undefined;
        if (client) {
            try {
                await client.dispose(2000);
            } catch (e) {
                this.output.appendLine(`stopping zy-lsp: ${errorMessage(e)}`);
            }
        }
        this.move({ kind: "stopped" });
    }

    dispose(): void {
        void this.stop();
        this.ready.dispose();
        this.statusItem.dispose();
        this.output.dispose();
    }

    private createClient(command: string): LanguageClient {
        const serverOptions: ServerOptions = { command };
        const clientOptions: LanguageClientOptions = {
            documentSelector: [
                { scheme: "file", language: "julia" },
                { scheme: "untitled", language: "julia" },
            ],
            outputChannel: this.output,
            middleware: this.middleware,
            // The server's settings (docs/lsp.md): given at start, then sent on every change.
            initializationOptions: serverSettings(),
            synchronize: { configurationSection: "zy" },
            errorHandler: {
                error: (error, _message, count) => {
                    this.output.appendLine(`connection error: ${error.message}`);
                    return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
                },
                closed: () => {
                    if (this.restarts.shouldRestart(Date.now())) {
                        this.output.appendLine("zy-lsp exited; restarting it");
                        return { action: CloseAction.Restart, handled: true };
                    }
                    const message = "zy-lsp exited 4 times in 3 minutes; run 'zy: Restart Server' to try again";
                    this.move({ kind: "failed", message });
                    return { action: CloseAction.DoNotRestart, message, handled: true };
                },
            },
        };
        // The id "zy" makes the client read the trace level from `zy.trace.server`.
        const client = new LanguageClient("zy", "zy", serverOptions, clientOptions);
        this.stateListener = client.onDidChangeState((e) => {
            if (e.newState === State.Running) {
                this.move({ kind: "running" });
            } else if (e.newState === State.Starting) {
                this.move({ kind: "start" });
            } else {
                this.move({ kind: "stopped" });
            }
        });
        return client;
    }

    private move(event: StatusEvent): void {
        const was = this.status.kind;
        this.status = nextStatus(this.status, event);
        this.render();
        if (this.status.kind === "ready" && was !== "ready") {
            this.ready.fire();
        }
    }

    private render(): void {
        const view = statusView(this.status);
        this.statusItem.text = view.text;
        this.statusItem.tooltip = view.tooltip;
        this.statusItem.backgroundColor = view.isError ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
    }
}

/** The `zy` settings the server reads, as `initializationOptions`. */
function serverSettings(): object {
    const config = vscode.workspace.getConfiguration("zy");
    return {
        gradient: {
            timeoutMs: config.get<number>("gradient.timeoutMs"),
            memoryMb: config.get<number>("gradient.memoryMb"),
            adjointHints: config.get<boolean>("gradient.adjointHints"),
        },
        analysis: { maxFileKb: config.get<number>("analysis.maxFileKb") },
        debug: config.get<boolean>("debug"),
    };
}

function isExecutable(p: string): boolean {
    try {
        fs.accessSync(p, fs.constants.X_OK);
        return fs.statSync(p).isFile();
    } catch {
        return false;
    }
}

/** The message of anything thrown. */
export function errorMessage(e: unknown): string {
    return e instanceof Error ? e.message : String(e);
}

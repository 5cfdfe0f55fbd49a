//! The language server: document state, ordered edits, and one thin handler per request.
//!
//! Edits are applied synchronously at the start of their handler (before any `.await`), so they
//! happen in the order the client sent them even though tower-lsp runs handlers concurrently.
//! Reads take a snapshot under the lock and run on a blocking thread (see [`dispatch`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tower_lsp::jsonrpc::{Error, Result};
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer};
use zy_ide::{Analysis, AnalysisHost, Config, Engine, EvalLimits, FileId, IrStage};

use crate::convert::Document;
use crate::dispatch::{run, Outcome};
use crate::ext::{self, GradientArgs, GradientResult, ViewIrParams, ViewIrResult};

/// How long a `# zy: at` run may take before it is stopped.
const RUN_TIMEOUT: Duration = Duration::from_secs(5);

/// Numbers for progress tokens.
static PROGRESS_IDS: AtomicU64 = AtomicU64::new(1);

/// Everything the server mutates, behind one lock.
#[derive(Default)]
struct State {
    host: AnalysisHost,
    /// The workspace root and its `zy.toml` (lint levels and tolerances, as `check` uses them).
    root: Option<PathBuf>,
    config: Config,
    docs: HashMap<Url, Document>,
    /// The last computed gradient per (document, function), shown in lenses and hints.
    gradients: HashMap<(Url, String), GradientResult>,
}

/// The `LanguageServer` implementation.
pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
}

/// A snapshot plus what a handler needs to convert positions.
struct Snapshot {
    analysis: Analysis,
    file: FileId,
    doc: DocView,
    /// The gradients computed so far (copied under the same lock as the snapshot: taking the
    /// lock again while a snapshot lives could deadlock with an edit waiting for snapshots).
    gradients: HashMap<(Url, String), GradientResult>,
}

/// An immutable copy of a document for position conversions off the lock.
struct DocView {
    doc: Document,
}

impl Backend {
    /// A server talking to `client`.
    pub fn new(client: Client) -> Backend {
        Backend {
            client,
            state: Arc::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn snapshot(&self, uri: &Url) -> Result<Snapshot> {
        let state = self.lock();
        let doc = state
            .docs
            .get(uri)
            .ok_or_else(|| invalid(format!("{uri} is not open")))?;
        let file = state
            .host
            .file_id(&path_of(uri))
            .ok_or_else(|| invalid(format!("{uri} is not open")))?;
        Ok(Snapshot {
            analysis: state.host.analysis(),
            file,
            doc: DocView {
                doc: Document::new(doc.text.clone(), doc.version),
            },
            gradients: state.gradients.clone(),
        })
    }

    /// Apply a document's new text to the analysis host and publish its diagnostics.
    fn changed(&self, uri: Url) {
        let version = {
            let mut state = self.lock();
            let Some(doc) = state.docs.get(&uri) else {
                return;
            };
            let (text, version) = (doc.text.clone(), doc.version);
            tracing::debug!(%uri, version, "applying edit");
            state.host.set_file_text(&path_of(&uri), text);
            // Files it includes that are not open are read from disk.
            state
                .host
                .load_includes(|path| std::fs::read_to_string(path).map_err(|e| e.to_string()));
            tracing::debug!(%uri, version, "edit applied");
            state.gradients.retain(|(u, _), _| *u != uri);
            version
        };
        let client = self.client.clone();
        let state = self.state.clone();
        tokio::spawn(async move {
            // The snapshot is taken on the blocking thread: a snapshot parked in a task that a
            // blocked worker cannot run would make the next edit wait for it forever.
            let for_task = state.clone();
            let task_uri = uri.clone();
            let task = tokio::task::spawn_blocking(move || {
                let (analysis, file, doc, config) = {
                    let state = for_task.lock().unwrap_or_else(PoisonError::into_inner);
                    let doc = state.docs.get(&task_uri)?;
                    let path = path_of(&task_uri);
                    let file = state.host.file_id(&path)?;
                    let rel = match &state.root {
                        Some(root) => path
                            .strip_prefix(root)
                            .unwrap_or(&path)
                            .to_string_lossy()
                            .replace('\\', "/"),
                        None => path.to_string_lossy().into_owned(),
                    };
                    let config = state.config.for_path(&rel);
                    (
                        state.host.analysis(),
                        file,
                        Document::new(doc.text.clone(), doc.version),
                        config,
                    )
                };
                let diags = analysis.check_static(file, &config).ok()?;
                Some(
                    diags
                        .into_iter()
                        .map(|d| to_diagnostic(&doc, d))
                        .collect::<Vec<_>>(),
                )
            });
            let Ok(Some(diags)) = task.await else { return };
            // Publish only if no newer edit arrived meanwhile.
            let current = {
                let state = state.lock().unwrap_or_else(PoisonError::into_inner);
                state.docs.get(&uri).map(|d| d.version)
            };
            if current == Some(version) {
                client.publish_diagnostics(uri, diags, Some(version)).await;
            }
        });
    }

    /// Run the gradient at `function`'s `# zy: at` call with the JIT, remember the result for the
    /// lens and inlay hint, and report progress while it runs.
    async fn compute_gradient(&self, args: GradientArgs) -> Result<GradientResult> {
        let snap = self.snapshot(&args.uri)?;
        let progress = self.begin_progress(&format!("∇ {}", args.function)).await;
        let function = args.function.clone();
        let result = run("zy.computeGradient", move || {
            let f = match snap.analysis.outline(snap.file) {
                Ok(fs) => fs.into_iter().find(|f| f.name == function),
                Err(_) => return Outcome::Cancelled,
            };
            let Some(f) = f else {
                return Outcome::Failed(format!("no function `{function}` in this file"));
            };
            let Some(call) = f.at_call else {
                return Outcome::Failed(format!(
                    "add `# zy: at {function}(...)` above `{function}` to choose the call"
                ));
            };
            let limits = EvalLimits {
                timeout: Some(RUN_TIMEOUT),
                ..EvalLimits::default()
            };
            let start = Instant::now();
            match snap.analysis.grad(snap.file, &call, limits, Engine::Jit) {
                Ok(Ok(g)) => {
                    let grads: Vec<&str> = g.gradient.iter().map(|x| x.display.as_str()).collect();
                    let gradient = if grads.len() == 1 {
                        format!("({},)", grads[0])
                    } else {
                        format!("({})", grads.join(", "))
                    };
                    Outcome::Done(GradientResult {
                        call,
                        value: g.value.display,
                        gradient,
                        micros: start.elapsed().as_micros() as u64,
                    })
                }
                Ok(Err(e)) => Outcome::Failed(e.to_string()),
                Err(_) => Outcome::Cancelled,
            }
        })
        .await;
        self.end_progress(progress).await;
        let result = result?;
        self.lock()
            .gradients
            .insert((args.uri, args.function), result.clone());
        // Ask the client to re-request lenses and hints so the result shows in place.
        let _ = self.client.code_lens_refresh().await;
        let _ = self.client.inlay_hint_refresh().await;
        Ok(result)
    }

    /// Start a `$/progress` report (when the client accepts a token).
    async fn begin_progress(&self, title: &str) -> Option<NumberOrString> {
        let token = NumberOrString::String(format!(
            "zy/{}",
            PROGRESS_IDS.fetch_add(1, Ordering::Relaxed)
        ));
        let created = self
            .client
            .send_request::<request::WorkDoneProgressCreate>(WorkDoneProgressCreateParams {
                token: token.clone(),
            })
            .await;
        if created.is_err() {
            return None;
        }
        let begin = WorkDoneProgressBegin {
            title: title.to_string(),
            message: Some("compiling and running".into()),
            ..Default::default()
        };
        self.client
            .send_notification::<notification::Progress>(ProgressParams {
                token: token.clone(),
                value: ProgressParamsValue::WorkDone(WorkDoneProgress::Begin(begin)),
            })
            .await;
        Some(token)
    }

    async fn end_progress(&self, token: Option<NumberOrString>) {
        if let Some(token) = token {
            self.client
                .send_notification::<notification::Progress>(ProgressParams {
                    token,
                    value: ProgressParamsValue::WorkDone(WorkDoneProgress::End(
                        WorkDoneProgressEnd { message: None },
                    )),
                })
                .await;
        }
    }

    /// `zy/viewIr`: the IR of the function enclosing a position at a stage.
    pub async fn view_ir(&self, params: ViewIrParams) -> Result<ViewIrResult> {
        let snap = self.snapshot(&params.text_document.uri)?;
        let stages: &[IrStage] = match params.stage.as_str() {
            "primal" => &[IrStage::Primal],
            "typed" => &[IrStage::Typed],
            "forward" => &[IrStage::Forward],
            "pullback" => &[IrStage::Pullback],
            "adjoint" => &[IrStage::Forward, IrStage::Pullback],
            "clif" => &[IrStage::Clif],
            "dot" => &[IrStage::Dot],
            other => return Err(invalid(format!("unknown IR stage `{other}`"))),
        };
        run("zy/viewIr", move || {
            let offset = snap.doc.doc.offset(params.position);
            let f = match snap.analysis.function_at(snap.file, offset) {
                Ok(Some(f)) => f,
                Ok(None) => return Outcome::Failed("no function at this position".into()),
                Err(_) => return Outcome::Cancelled,
            };
            let mut texts = Vec::new();
            for &stage in stages {
                match snap.analysis.view_ir(snap.file, &f.name, None, stage) {
                    Ok(Ok(text)) => texts.push(text),
                    Ok(Err(e)) => return Outcome::Failed(e.to_string()),
                    Err(_) => return Outcome::Cancelled,
                }
            }
            Outcome::Done(ViewIrResult {
                text: texts.join("\n"),
            })
        })
        .await
    }
}

#[tower_lsp::async_trait]
impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        #[allow(deprecated)] // `root_uri`: still what most clients send
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .map(|f| f.uri.clone())
            .or(params.root_uri)
            .and_then(|u| u.to_file_path().ok());
        if let Some(root) = root {
            let toml = root.join("zy.toml");
            match std::fs::read_to_string(&toml) {
                Ok(text) => match Config::parse(&text) {
                    Ok(config) => self.lock().config = config,
                    Err(e) => {
                        let msg = format!("{}:{}:{}: {}", toml.display(), e.line, e.col, e.message);
                        tracing::warn!("{msg}");
                        self.client
                            .show_message(MessageType::WARNING, format!("zy.toml ignored: {msg}"))
                            .await;
                    }
                },
                Err(_) => tracing::info!(root = %root.display(), "no zy.toml"),
            }
            self.lock().root = Some(root);
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Kind(
                    TextDocumentSyncKind::INCREMENTAL,
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![ext::COMPUTE_GRADIENT.to_string()],
                    work_done_progress_options: WorkDoneProgressOptions::default(),
                }),
                position_encoding: Some(PositionEncodingKind::UTF16),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "zy-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        tracing::info!("initialized");
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        self.lock()
            .docs
            .insert(doc.uri.clone(), Document::new(doc.text, doc.version));
        self.changed(doc.uri);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        {
            let mut state = self.lock();
            let Some(doc) = state.docs.get_mut(&uri) else {
                tracing::warn!(%uri, "change to a document that is not open");
                return;
            };
            for change in &params.content_changes {
                doc.apply(change);
            }
            doc.version = params.text_document.version;
        }
        self.changed(uri);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let mut state = self.lock();
        state.docs.remove(&uri);
        state.gradients.retain(|(u, _), _| *u != uri);
        // The file stays in the workspace: other files may call its functions.
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        let snap = self.snapshot(&pos.text_document.uri)?;
        run("hover", move || {
            let offset = snap.doc.doc.offset(pos.position);
            match snap.analysis.hover(snap.file, offset) {
                Ok(h) => Outcome::Done(h.map(|h| Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: h.markdown,
                    }),
                    range: Some(snap.doc.doc.range(h.start, h.end)),
                })),
                Err(_) => Outcome::Cancelled,
            }
        })
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let snap = self.snapshot(&uri)?;
        run("codeLens", move || {
            let Ok(functions) = snap.analysis.outline(snap.file) else {
                return Outcome::Cancelled;
            };
            let mut lenses = Vec::new();
            for f in functions {
                let range = snap.doc.doc.range(f.name_start, f.name_end);
                let position = range.start;
                let show = serde_json::json!({ "uri": uri, "position": position });
                let title = match snap.gradients.get(&(uri.clone(), f.name.clone())) {
                    Some(r) => format!(
                        "∇ {} = {} · ∇ = {} ({} µs)",
                        r.call, r.value, r.gradient, r.micros
                    ),
                    None if f.at_call.is_some() => "∇ compute gradient".to_string(),
                    None => "∇ compute gradient (add `# zy: at` first)".to_string(),
                };
                lenses.push(CodeLens {
                    range,
                    command: Some(Command {
                        title,
                        command: ext::COMPUTE_GRADIENT.into(),
                        arguments: Some(vec![
                            serde_json::json!({ "uri": uri, "function": f.name }),
                        ]),
                    }),
                    data: None,
                });
                lenses.push(CodeLens {
                    range,
                    command: Some(Command {
                        title: "show adjoint IR".into(),
                        command: ext::SHOW_ADJOINT_IR.into(),
                        arguments: Some(vec![show.clone()]),
                    }),
                    data: None,
                });
                lenses.push(CodeLens {
                    range,
                    command: Some(Command {
                        title: "show SSA".into(),
                        command: ext::SHOW_SSA.into(),
                        arguments: Some(vec![show]),
                    }),
                    data: None,
                });
            }
            Outcome::Done(Some(lenses))
        })
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let uri = params.text_document.uri;
        let snap = self.snapshot(&uri)?;
        run("inlayHint", move || {
            let (Ok(hints), Ok(functions)) = (
                snap.analysis.gradient_hints(snap.file),
                snap.analysis.outline(snap.file),
            ) else {
                return Outcome::Cancelled;
            };
            let doc = &snap.doc.doc;
            let mut out: Vec<InlayHint> = hints
                .into_iter()
                .map(|h| InlayHint {
                    position: doc.position(h.offset),
                    label: InlayHintLabel::String(h.label),
                    kind: Some(InlayHintKind::TYPE),
                    text_edits: None,
                    tooltip: None,
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                })
                .collect();
            // The last computed gradient, after the closing parenthesis of the signature.
            for f in functions {
                let Some(r) = snap.gradients.get(&(uri.clone(), f.name.clone())) else {
                    continue;
                };
                let from = f.params.last().map_or(f.name_end, |p| p.end) as usize;
                let Some(close) = doc.text.get(from..).and_then(|t| t.find(')')) else {
                    continue;
                };
                out.push(InlayHint {
                    position: doc.position((from + close + 1) as u32),
                    label: InlayHintLabel::String(format!("∇ = {}", r.gradient)),
                    kind: None,
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::String(format!(
                        "{} = {} ({} µs)",
                        r.call, r.value, r.micros
                    ))),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                });
            }
            out.retain(|h| h.position >= params.range.start && h.position <= params.range.end);
            Outcome::Done(Some(out))
        })
        .await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        match params.command.as_str() {
            ext::COMPUTE_GRADIENT => {
                let arg = params.arguments.into_iter().next().unwrap_or(Value::Null);
                let args: GradientArgs = serde_json::from_value(arg).map_err(|e| {
                    invalid(format!("zy.computeGradient expects {{uri, function}}: {e}"))
                })?;
                let result = self.compute_gradient(args).await?;
                Ok(Some(serde_json::to_value(result).unwrap_or(Value::Null)))
            }
            other => Err(invalid(format!("unknown command `{other}`"))),
        }
    }
}

fn invalid(message: String) -> Error {
    Error::invalid_params(message)
}

/// The workspace path a document is analysed under.
fn path_of(uri: &Url) -> PathBuf {
    uri.to_file_path()
        .unwrap_or_else(|_| PathBuf::from(uri.as_str()))
}

fn to_diagnostic(doc: &Document, d: zy_ide::Diagnostic) -> Diagnostic {
    Diagnostic {
        range: doc.range(d.start, d.end),
        severity: Some(match d.severity {
            zy_ide::Severity::Error => DiagnosticSeverity::ERROR,
            zy_ide::Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code)),
        source: Some("zy".into()),
        message: d.message,
        ..Diagnostic::default()
    }
}

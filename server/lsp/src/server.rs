//! The language server: document state, ordered edits, and one thin handler per request.
//!
//! Edits are applied synchronously at the start of their handler (before any `.await`), so they
//! happen in the order the client sent them even though tower-lsp runs handlers concurrently.
//! Reads take a snapshot under the lock and run on a blocking thread (see [`dispatch`]). The
//! server never waits for the client on a request's path: progress reports and refreshes are
//! sent from tasks of their own, and only when the client declared them.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{DuplexStream, ReadHalf, WriteHalf};
use tokio::sync::oneshot;
use tower_lsp::jsonrpc::{Error, Result};
use tower_lsp::lsp_types::*;
use tower_lsp::{Client, LanguageServer, LspService, Server};
use zy_ide::{
    Analysis, AnalysisHost, CompletionKind, Config, Engine, EvalLimits, FileId, GradOptions,
    IrStage, TraceRow,
};

use crate::convert::Document;
use crate::dispatch::{panic_message, run, Budget, Outcome, REQUEST_TIMEOUT};
use crate::ext::{
    self, DerivativeResult, GradientArgs, GradientResult, ViewIrParams, ViewIrResult,
};
use crate::settings::{Settings, GRADIENT_MEMORY_KEY, GRADIENT_TIMEOUT_KEY, MAX_FILE_KEY};
use crate::summary::{self, HINT_CHARS, TITLE_CHARS};

/// How long the server waits for the client to accept a progress token before it gives up
/// reporting progress for that run (the run itself never waits for it).
const PROGRESS_CREATE_WAIT: Duration = Duration::from_secs(5);

/// How long edits to a file above the full-analysis size limit must pause before it is parsed.
const LARGE_FILE_PAUSE: Duration = Duration::from_millis(300);

/// Numbers for progress tokens.
static PROGRESS_IDS: AtomicU64 = AtomicU64::new(1);

/// Serve the language server on the two ends of a transport.
pub async fn serve(input: ReadHalf<DuplexStream>, output: WriteHalf<DuplexStream>) {
    let (service, socket) = LspService::build(Backend::new)
        .custom_method(ext::VIEW_IR, Backend::view_ir)
        .custom_method(ext::PRELUDE_TEXT, Backend::prelude_text)
        .finish();
    Server::new(input, output, socket).serve(service).await;
}

/// Everything the server mutates, behind one lock.
#[derive(Default)]
struct State {
    host: AnalysisHost,
    /// The workspace root and its `zy.toml` (lint levels and tolerances, as `check` uses them).
    root: Option<PathBuf>,
    config: Config,
    docs: HashMap<Url, Document>,
    /// The last computed gradient per (document, function), shown in lenses and hints.
    gradients: HashMap<(Url, String), Computed>,
    /// The last computed derivative per (document, function), shown in its lens.
    derivatives: HashMap<(Url, String), DerivativeResult>,
    settings: Settings,
    caps: ClientCaps,
    /// The documents the user was told are too large to analyse in full.
    told_large: HashSet<Url>,
}

/// What the client declared it handles (the server sends nothing else).
#[derive(Clone, Copy, Default)]
struct ClientCaps {
    progress: bool,
    lens_refresh: bool,
    hint_refresh: bool,
}

/// A computed gradient: in full (what the command returned) and in short forms for the lens,
/// with every variable's adjoint (empty when adjoint hints are off).
#[derive(Clone)]
struct Computed {
    full: GradientResult,
    value: String,
    gradient: String,
    trace: Vec<TraceRow>,
}

/// The interpreter's traced run behind a gradient's adjoint hints, left to after the gradient's
/// reply: the lens shows the gradient as soon as the JIT has it, and the hints follow.
struct TraceJob {
    analysis: Analysis,
    file: FileId,
    call: String,
    limits: EvalLimits,
    budget: Budget,
}

/// Run `job` and give its rows to the gradient stored under `key`, if that gradient is still
/// the one of `job`'s call (an edit cancels the run; a newer gradient is left alone), then ask
/// the client to re-request hints.
async fn adjoint_trace(
    job: TraceJob,
    state: Arc<Mutex<State>>,
    client: Client,
    key: (Url, String),
) {
    let TraceJob {
        analysis,
        file,
        call,
        limits,
        budget,
    } = job;
    let cancel = analysis.stale_flag();
    let traced_call = call.clone();
    let rows = run("zy.adjointTrace", cancel, budget, move || {
        match analysis.trace(file, &traced_call, limits) {
            Ok(Ok(rows)) => Outcome::Done(rows),
            Ok(Err(e)) => {
                tracing::warn!(call = %traced_call, error = %e, "the adjoint trace failed");
                Outcome::Failed(e.to_string())
            }
            Err(_) => Outcome::Cancelled,
        }
    })
    .await;
    let Ok(rows) = rows else {
        return;
    };
    let refresh = {
        let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
        let caps = state.caps;
        match state.gradients.get_mut(&key) {
            Some(c) if c.full.call == call => {
                c.trace = rows;
                caps.hint_refresh
            }
            _ => false,
        }
    };
    if refresh {
        let _ = client.inlay_hint_refresh().await;
    }
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
    gradients: HashMap<(Url, String), Computed>,
    /// The derivatives computed so far (copied likewise).
    derivatives: HashMap<(Url, String), DerivativeResult>,
    settings: Settings,
    /// Why the document is only parsed, if it is above the full-analysis size limit.
    too_large: Option<String>,
}

impl Snapshot {
    /// What a lens command may use: the editor's gradient limits, plus the margin of a request.
    fn lens_budget(&self) -> Budget {
        Budget {
            time: self.settings.gradient_timeout + REQUEST_TIMEOUT,
            memory: Some((self.settings.gradient_memory, GRADIENT_MEMORY_KEY)),
        }
    }

    /// The `# zy: at` call of `function`, which the lens commands run, and the limits they run
    /// it under (the editor's gradient settings, `timeout`).
    fn lens_call(&self, function: &str, timeout: Duration) -> Outcome<(String, EvalLimits)> {
        let f = match self.analysis.outline(self.file) {
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
            timeout: Some(timeout),
            max_memory: usize::try_from(self.settings.gradient_memory).unwrap_or(usize::MAX),
            ..EvalLimits::default()
        };
        Outcome::Done((call, limits))
    }

    /// The limits of each test a testset's lens runs: the editor's gradient settings.
    fn test_limits(&self) -> EvalLimits {
        EvalLimits {
            timeout: Some(self.settings.gradient_timeout),
            max_memory: usize::try_from(self.settings.gradient_memory).unwrap_or(usize::MAX),
            ..EvalLimits::default()
        }
    }
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
            derivatives: state.derivatives.clone(),
            settings: state.settings.clone(),
            too_large: too_large(doc.text.len(), state.settings.max_file_bytes)
                .map(|why| format!("zy only parses this file: {why}")),
        })
    }

    /// Apply a document's new text to the analysis host and publish its diagnostics.
    fn changed(&self, uri: Url) {
        let (version, large) = {
            let mut state = self.lock();
            let Some(doc) = state.docs.get(&uri) else {
                return;
            };
            let (text, version) = (doc.text.clone(), doc.version);
            let large = text.len() as u64 > state.settings.max_file_bytes;
            tracing::debug!(%uri, version, "applying edit");
            let file = state.host.set_file_text(&path_of(&uri), text);
            // Files it includes that are not open are read from disk, and the package's file
            // that includes it.
            let limit = state.settings.max_file_bytes;
            state.host.load_includes(|path| read_included(path, limit));
            state
                .host
                .load_package_entry(file, |path| read_included(path, limit));
            tracing::debug!(%uri, version, "edit applied");
            state.gradients.retain(|(u, _), _| *u != uri);
            state.derivatives.retain(|(u, _), _| *u != uri);
            (version, large)
        };
        let client = self.client.clone();
        let state = self.state.clone();
        tokio::spawn(async move {
            // A large file's parse alone takes a while, and the next edit waits for it: parse
            // once typing pauses.
            if large {
                tokio::time::sleep(LARGE_FILE_PAUSE).await;
                let current = state
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .docs
                    .get(&uri)
                    .map(|d| d.version);
                if current != Some(version) {
                    return;
                }
            }
            // The snapshot is taken on the blocking thread: a snapshot parked in a task that a
            // blocked worker cannot run would make the next edit wait for it forever.
            let (for_task, task_uri) = (state.clone(), uri.clone());
            let task = tokio::task::spawn_blocking(move || {
                catch_unwind(AssertUnwindSafe(|| diagnose(&for_task, &task_uri)))
            });
            let Ok(outcome) = task.await else { return };
            // Publish only if no newer edit arrived meanwhile.
            let (current, told) = {
                let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                let large = matches!(&outcome, Ok(Some(d)) if d.large);
                (
                    state.docs.get(&uri).map(|d| d.version),
                    large && !state.told_large.insert(uri.clone()),
                )
            };
            if current != Some(version) {
                return;
            }
            let diags = match outcome {
                Ok(None) => return, // cancelled by a newer edit, or closed
                Ok(Some(d)) => {
                    if d.large && !told {
                        client
                            .show_message(MessageType::INFO, large_file_message(&uri, &d))
                            .await;
                    }
                    d.diagnostics
                }
                Err(panic) => {
                    let msg = panic_message(&*panic);
                    tracing::error!(%uri, panic = %msg, "the diagnostics pass panicked");
                    let text = format!("zy: the analysis of {uri} failed internally ({msg}); it runs again at the next edit");
                    client.show_message(MessageType::ERROR, text).await;
                    vec![internal_error(&msg)]
                }
            };
            client.publish_diagnostics(uri, diags, Some(version)).await;
        });
    }

    /// Run the gradient at `function`'s `# zy: at` call with the JIT, remember the result for the
    /// lens and inlay hint, and report progress while it runs.
    async fn compute_gradient(&self, args: GradientArgs) -> Result<GradientResult> {
        let snap = self.snapshot(&args.uri)?;
        if let Some(why) = snap.too_large {
            return Err(invalid(why));
        }
        let _progress = self.progress(format!("∇ {}", args.function));
        let function = args.function.clone();
        let cancel = snap.analysis.stale_flag();
        let timeout = snap.settings.gradient_timeout;
        let budget = snap.lens_budget();
        let trace_budget = snap.lens_budget();
        let computed = run("zy.computeGradient", cancel, budget, move || {
            let (call, limits) = match snap.lens_call(&function, timeout) {
                Outcome::Done(found) => found,
                Outcome::Cancelled => return Outcome::Cancelled,
                Outcome::Failed(e) => return Outcome::Failed(e),
            };
            let start = Instant::now();
            match snap.analysis.grad_with(
                snap.file,
                &call,
                limits.clone(),
                Engine::Jit,
                GradOptions {
                    trace: false,
                    debug: snap.settings.debug,
                },
            ) {
                Ok(Ok(g)) => {
                    let micros = start.elapsed().as_micros() as u64;
                    let full = GradientResult {
                        call: call.clone(),
                        value: g.value().display.clone(),
                        gradient: summary::full_tuple(g.gradient()),
                        micros,
                        nonfinite: g.nonfinite.as_ref().map(|n| {
                            format!("{}:{}:{}: {}", n.file.display(), n.line, n.col, n.message)
                        }),
                        mode: g.forward.as_ref().map(|_| "forward".to_string()),
                    };
                    let computed = Computed {
                        full,
                        value: summary::short(g.value()),
                        gradient: summary::short_tuple(g.gradient()),
                        trace: Vec::new(),
                    };
                    // The adjoint hints trace the reverse pass, which a forward-mode gradient has not.
                    let hints = snap.settings.adjoint_hints && g.forward.is_none();
                    let trace = hints.then(|| TraceJob {
                        analysis: snap.analysis,
                        file: snap.file,
                        call,
                        limits,
                        budget: trace_budget,
                    });
                    Outcome::Done((computed, trace))
                }
                Ok(Err(e)) if start.elapsed() >= timeout => Outcome::Failed(format!(
                    "{e} (the editor's limit is {} s: setting `{GRADIENT_TIMEOUT_KEY}`)",
                    timeout.as_secs_f64()
                )),
                Ok(Err(e)) => Outcome::Failed(e.to_string()),
                Err(_) => Outcome::Cancelled,
            }
        })
        .await?;
        let (computed, trace) = computed;
        let result = computed.full.clone();
        let key = (args.uri, args.function);
        let caps = {
            let mut state = self.lock();
            state.gradients.insert(key.clone(), computed);
            state.caps
        };
        // Ask the client to re-request lenses and hints so the result shows in place.
        let client = self.client.clone();
        tokio::spawn(async move {
            if caps.lens_refresh {
                let _ = client.code_lens_refresh().await;
            }
            if caps.hint_refresh {
                let _ = client.inlay_hint_refresh().await;
            }
        });
        if let Some(job) = trace {
            tokio::spawn(adjoint_trace(
                job,
                self.state.clone(),
                self.client.clone(),
                key,
            ));
        }
        Ok(result)
    }

    /// Run forward mode's derivative at `function`'s `# zy: at` call (a function of one Float64
    /// argument), remember it for the lens and ask the client to refresh lenses.
    async fn compute_derivative(&self, args: GradientArgs) -> Result<DerivativeResult> {
        let snap = self.snapshot(&args.uri)?;
        if let Some(why) = snap.too_large {
            return Err(invalid(why));
        }
        let _progress = self.progress(format!("∂ {}", args.function));
        let function = args.function.clone();
        let cancel = snap.analysis.stale_flag();
        let timeout = snap.settings.gradient_timeout;
        let budget = snap.lens_budget();
        let result = run("zy.computeDerivative", cancel, budget, move || {
            let (call, limits) = match snap.lens_call(&function, timeout) {
                Outcome::Done(found) => found,
                Outcome::Cancelled => return Outcome::Cancelled,
                Outcome::Failed(e) => return Outcome::Failed(e),
            };
            let start = Instant::now();
            match snap.analysis.derivative(snap.file, &call, limits) {
                Ok(Ok(d)) => Outcome::Done(DerivativeResult {
                    call,
                    value: d.value.display,
                    derivative: d.derivative.display,
                    micros: start.elapsed().as_micros() as u64,
                }),
                Ok(Err(e)) => Outcome::Failed(e.to_string()),
                Err(_) => Outcome::Cancelled,
            }
        })
        .await?;
        let caps = {
            let mut state = self.lock();
            state
                .derivatives
                .insert((args.uri, args.function), result.clone());
            state.caps
        };
        let client = self.client.clone();
        tokio::spawn(async move {
            if caps.lens_refresh {
                let _ = client.code_lens_refresh().await;
            }
        });
        Ok(result)
    }

    /// Report progress titled `title` until the returned handle is dropped, if the client
    /// declared it handles progress. Nothing here delays the caller: the token is created, and
    /// its answer awaited, in a task of its own.
    fn progress(&self, title: String) -> Option<oneshot::Sender<()>> {
        if !self.lock().caps.progress {
            return None;
        }
        let (done, finished) = oneshot::channel::<()>();
        let client = self.client.clone();
        tokio::spawn(async move {
            let token = NumberOrString::String(format!(
                "zy/{}",
                PROGRESS_IDS.fetch_add(1, Ordering::Relaxed)
            ));
            let create = client.send_request::<request::WorkDoneProgressCreate>(
                WorkDoneProgressCreateParams {
                    token: token.clone(),
                },
            );
            if !matches!(
                tokio::time::timeout(PROGRESS_CREATE_WAIT, create).await,
                Ok(Ok(()))
            ) {
                return;
            }
            let begin = WorkDoneProgressBegin {
                title,
                message: Some("compiling and running".into()),
                ..Default::default()
            };
            let report = |value| ProgressParams {
                token: token.clone(),
                value: ProgressParamsValue::WorkDone(value),
            };
            client
                .send_notification::<notification::Progress>(report(WorkDoneProgress::Begin(begin)))
                .await;
            // Ends when the run does (the handle is dropped).
            let _ = finished.await;
            let end = WorkDoneProgressEnd { message: None };
            client
                .send_notification::<notification::Progress>(report(WorkDoneProgress::End(end)))
                .await;
        });
        Some(done)
    }

    /// `zy/preludeText`: the text of a prelude file, for clients that show `zy-prelude:` URIs.
    pub async fn prelude_text(
        &self,
        params: ext::PreludeTextParams,
    ) -> Result<ext::PreludeTextResult> {
        let name = params.uri.path().trim_start_matches('/').to_string();
        match (params.uri.scheme(), zy_ide::prelude_text(&name)) {
            (ext::PRELUDE_SCHEME, Some(text)) => Ok(ext::PreludeTextResult {
                text: text.to_string(),
            }),
            _ => Err(invalid(format!(
                "{} is not a file of zy's prelude",
                params.uri
            ))),
        }
    }

    /// `zy/viewIr`: the IR of the function enclosing a position at a stage.
    pub async fn view_ir(&self, params: ViewIrParams) -> Result<ViewIrResult> {
        let snap = self.snapshot(&params.text_document.uri)?;
        if let Some(why) = snap.too_large {
            return Err(invalid(why));
        }
        let stages: &[IrStage] = match params.stage.as_str() {
            "primal" => &[IrStage::Primal],
            "typed" => &[IrStage::Typed],
            "forward" => &[IrStage::Forward],
            "pullback" => &[IrStage::Pullback],
            "pushforward" => &[IrStage::Pushforward],
            "adjoint" => &[IrStage::Forward, IrStage::Pullback],
            "clif" => &[IrStage::Clif],
            "dot" => &[IrStage::Dot],
            other => return Err(invalid(format!("unknown IR stage `{other}`"))),
        };
        run(
            "zy/viewIr",
            snap.analysis.stale_flag(),
            Budget::REQUEST,
            move || {
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
            },
        )
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
        let caps = &params.capabilities;
        let workspace = caps.workspace.as_ref();
        let complaints = {
            let mut state = self.lock();
            state.caps = ClientCaps {
                progress: caps.window.as_ref().and_then(|w| w.work_done_progress) == Some(true),
                lens_refresh: workspace
                    .and_then(|w| w.code_lens.as_ref())
                    .and_then(|c| c.refresh_support)
                    == Some(true),
                hint_refresh: workspace
                    .and_then(|w| w.inlay_hint.as_ref())
                    .and_then(|c| c.refresh_support)
                    == Some(true),
            };
            params
                .initialization_options
                .map_or_else(Vec::new, |options| state.settings.update(&options))
        };
        self.complain(complaints).await;
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Kind(
                    TextDocumentSyncKind::INCREMENTAL,
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                definition_provider: Some(OneOf::Left(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".to_string()]),
                    ..CompletionOptions::default()
                }),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(true),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![
                        ext::COMPUTE_GRADIENT.to_string(),
                        ext::COMPUTE_DERIVATIVE.to_string(),
                    ],
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

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // VS Code sends `{ "zy": { ... } }`; other clients may send the section itself.
        let section = params.settings.get("zy").unwrap_or(&params.settings);
        let (complaints, open) = {
            let mut state = self.lock();
            let complaints = state.settings.update(section);
            (complaints, state.docs.keys().cloned().collect::<Vec<_>>())
        };
        self.complain(complaints).await;
        // The size limit may have moved: analyse the open documents again.
        for uri in open {
            self.changed(uri);
        }
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
        {
            let mut state = self.lock();
            state.docs.remove(&uri);
            state.told_large.remove(&uri);
            state.gradients.retain(|(u, _), _| *u != uri);
            state.derivatives.retain(|(u, _), _| *u != uri);
            // The editor's text goes with the document: a file that an open one includes (or
            // whose package entry it is) is read again from disk, as Julia would load it, and
            // one that none does leaves the workspace (no other file sees it).
            let limit = state.settings.max_file_bytes;
            state.host.remove_file(&path_of(&uri));
            let open: Vec<PathBuf> = state.docs.keys().map(path_of).collect();
            for path in open {
                if let Some(file) = state.host.file_id(&path) {
                    let read = |p: &std::path::Path| read_included(p, limit);
                    state.host.load_package_entry(file, read);
                }
            }
            state.host.load_includes(|path| read_included(path, limit));
        }
        // Its diagnostics are no longer kept up to date: the editor drops them.
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        let snap = self.snapshot(&pos.text_document.uri)?;
        if snap.too_large.is_some() {
            return Ok(None);
        }
        run(
            "hover",
            snap.analysis.stale_flag(),
            Budget::REQUEST,
            move || {
                let offset = snap.doc.doc.offset(pos.position);
                let Ok(hover) = snap.analysis.hover(snap.file, offset) else {
                    return Outcome::Cancelled;
                };
                // The adjoints of a variable defined here, from the last computed gradient.
                let traced = snap
                    .gradients
                    .iter()
                    .filter(|((u, _), _)| *u == pos.text_document.uri)
                    .flat_map(|(_, c)| c.trace.iter().map(move |row| (c, row)))
                    .find_map(|(c, row)| {
                        let (start, end) = row.name_range(snap.file)?;
                        (start..=end)
                            .contains(&offset)
                            .then(|| (start, end, row.hover_markdown(&c.full.call)))
                    });
                let (markdown, start, end) = match (hover, traced) {
                    (Some(h), Some((_, _, t))) => {
                        (format!("{}\n\n---\n\n{t}", h.markdown), h.start, h.end)
                    }
                    (Some(h), None) => (h.markdown, h.start, h.end),
                    (None, Some((start, end, t))) => (t, start, end),
                    (None, None) => return Outcome::Done(None),
                };
                Outcome::Done(Some(Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: markdown,
                    }),
                    range: Some(snap.doc.doc.range(start, end)),
                }))
            },
        )
        .await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let pos = params.text_document_position_params;
        let snap = self.snapshot(&pos.text_document.uri)?;
        if snap.too_large.is_some() {
            return Ok(None);
        }
        run(
            "definition",
            snap.analysis.stale_flag(),
            Budget::REQUEST,
            move || {
                let offset = snap.doc.doc.offset(pos.position);
                let found = match snap.analysis.definition(snap.file, offset) {
                    Ok(found) => found,
                    Err(_) => return Outcome::Cancelled,
                };
                let mut locations = Vec::new();
                for loc in found {
                    let Ok(text) = snap.analysis.file_text(loc.file) else {
                        return Outcome::Cancelled;
                    };
                    let Some(uri) = location_uri(&loc) else {
                        continue;
                    };
                    let doc = Document::new(text, 0);
                    locations.push(Location::new(uri, doc.range(loc.start, loc.end)));
                }
                Outcome::Done(match locations.len() {
                    0 => None,
                    _ => Some(GotoDefinitionResponse::Array(locations)),
                })
            },
        )
        .await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let pos = params.text_document_position;
        let snap = self.snapshot(&pos.text_document.uri)?;
        if snap.too_large.is_some() {
            return Ok(None);
        }
        run(
            "completion",
            snap.analysis.stale_flag(),
            Budget::REQUEST,
            move || {
                let offset = snap.doc.doc.offset(pos.position);
                let Ok(found) = snap.analysis.completions(snap.file, offset) else {
                    return Outcome::Cancelled;
                };
                let items: Vec<CompletionItem> = found
                    .into_iter()
                    .map(|c| CompletionItem {
                        label: c.label,
                        kind: Some(completion_kind(c.kind)),
                        detail: c.detail,
                        ..CompletionItem::default()
                    })
                    .collect();
                Outcome::Done((!items.is_empty()).then_some(CompletionResponse::Array(items)))
            },
        )
        .await
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let snap = self.snapshot(&uri)?;
        if snap.too_large.is_some() {
            return Ok(Some(Vec::new()));
        }
        run(
            "codeLens",
            snap.analysis.stale_flag(),
            Budget::REQUEST,
            move || {
                let Ok(functions) = snap.analysis.outline(snap.file) else {
                    return Outcome::Cancelled;
                };
                let mut lenses = Vec::new();
                for f in functions {
                    let range = snap.doc.doc.range(f.name_start, f.name_end);
                    let position = range.start;
                    let show = serde_json::json!({ "uri": uri, "position": position });
                    let title = match snap.gradients.get(&(uri.clone(), f.name.clone())) {
                        Some(c) => {
                            let mode = match c.full.mode {
                                Some(_) => "forward mode, ",
                                None => "",
                            };
                            let title = format!(
                                "∇ {} = {} · ∇ = {} ({mode}{} µs)",
                                c.full.call, c.value, c.gradient, c.full.micros
                            );
                            summary::truncate(&title, TITLE_CHARS)
                        }
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
                    // Forward mode's derivative, for a function of one Float64 argument.
                    let scalar = match &f.at_call {
                        Some(call) => match snap.analysis.takes_one_float(snap.file, call) {
                            Ok(b) => b,
                            Err(_) => return Outcome::Cancelled,
                        },
                        None => false,
                    };
                    if scalar {
                        let title = match snap.derivatives.get(&(uri.clone(), f.name.clone())) {
                            Some(d) => summary::truncate(
                                &format!(
                                    "∂ {} = {} · ∂ = {} ({} µs)",
                                    d.call, d.value, d.derivative, d.micros
                                ),
                                TITLE_CHARS,
                            ),
                            None => "∂ compute derivative".to_string(),
                        };
                        lenses.push(CodeLens {
                            range,
                            command: Some(Command {
                                title,
                                command: ext::COMPUTE_DERIVATIVE.into(),
                                arguments: Some(vec![
                                    serde_json::json!({ "uri": uri, "function": f.name }),
                                ]),
                            }),
                            data: None,
                        });
                    }
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
                // A testset's lens is resolved (its tests run) only when the editor shows it.
                let Ok(testsets) = snap.analysis.testsets(snap.file) else {
                    return Outcome::Cancelled;
                };
                for t in testsets {
                    lenses.push(CodeLens {
                        range: snap.doc.doc.range(t.start, t.start),
                        command: None,
                        data: Some(serde_json::json!({ "uri": uri, "testset": t.start })),
                    });
                }
                Outcome::Done(Some(lenses))
            },
        )
        .await
    }

    async fn code_lens_resolve(&self, lens: CodeLens) -> Result<CodeLens> {
        let testset = lens.data.as_ref().and_then(|d| {
            let uri = Url::parse(d.get("uri")?.as_str()?).ok()?;
            let start = u32::try_from(d.get("testset")?.as_u64()?).ok()?;
            Some((uri, start))
        });
        let Some((uri, start)) = testset else {
            return Ok(lens);
        };
        let snap = self.snapshot(&uri)?;
        let budget = snap.lens_budget();
        run(
            "codeLens/resolve",
            snap.analysis.stale_flag(),
            budget,
            move || {
                let title = match &snap.too_large {
                    Some(why) => format!("tests not run: {why}"),
                    None => match snap
                        .analysis
                        .run_testset(snap.file, start, snap.test_limits())
                    {
                        Ok(Some(result)) => result.title(),
                        Ok(None) => "tests not run: the testset moved (an edit)".to_string(),
                        Err(_) => return Outcome::Cancelled,
                    },
                };
                let command = Command {
                    title,
                    command: String::new(),
                    arguments: None,
                };
                Outcome::Done(CodeLens {
                    command: Some(command),
                    ..lens
                })
            },
        )
        .await
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let uri = params.text_document.uri;
        let snap = self.snapshot(&uri)?;
        if snap.too_large.is_some() {
            return Ok(Some(Vec::new()));
        }
        run(
            "inlayHint",
            snap.analysis.stale_flag(),
            Budget::REQUEST,
            move || {
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
                    let Some(c) = snap.gradients.get(&(uri.clone(), f.name.clone())) else {
                        continue;
                    };
                    let from = f.params.last().map_or(f.name_end, |p| p.end) as usize;
                    let Some(close) = doc.text.get(from..).and_then(|t| t.find(')')) else {
                        continue;
                    };
                    out.push(InlayHint {
                        position: doc.position((from + close + 1) as u32),
                        label: InlayHintLabel::String(summary::truncate(
                            &format!("∇ = {}", c.gradient),
                            HINT_CHARS,
                        )),
                        kind: None,
                        text_edits: None,
                        tooltip: Some(InlayHintTooltip::String(format!(
                            "{} = {} · ∇ = {} ({} µs)",
                            c.full.call, c.full.value, c.full.gradient, c.full.micros
                        ))),
                        padding_left: Some(true),
                        padding_right: None,
                        data: None,
                    });
                    // Each variable's adjoint after its name where it is defined.
                    for row in &c.trace {
                        let Some((_, end)) = row.name_range(snap.file) else {
                            continue;
                        };
                        out.push(InlayHint {
                            position: doc.position(end),
                            label: InlayHintLabel::String(summary::truncate(
                                &row.hint_label(summary::short),
                                HINT_CHARS,
                            )),
                            kind: None,
                            text_edits: None,
                            tooltip: Some(InlayHintTooltip::MarkupContent(MarkupContent {
                                kind: MarkupKind::Markdown,
                                value: row.hover_markdown(&c.full.call),
                            })),
                            padding_left: Some(true),
                            padding_right: None,
                            data: None,
                        });
                    }
                }
                out.retain(|h| h.position >= params.range.start && h.position <= params.range.end);
                Outcome::Done(Some(out))
            },
        )
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
            ext::COMPUTE_DERIVATIVE => {
                let arg = params.arguments.into_iter().next().unwrap_or(Value::Null);
                let args: GradientArgs = serde_json::from_value(arg).map_err(|e| {
                    invalid(format!(
                        "zy.computeDerivative expects {{uri, function}}: {e}"
                    ))
                })?;
                let result = self.compute_derivative(args).await?;
                Ok(Some(serde_json::to_value(result).unwrap_or(Value::Null)))
            }
            other => Err(invalid(format!("unknown command `{other}`"))),
        }
    }
}

impl Backend {
    /// Tell the user about settings that were ignored.
    async fn complain(&self, complaints: Vec<String>) {
        for c in complaints {
            tracing::warn!("setting ignored: {c}");
            self.client
                .show_message(MessageType::WARNING, format!("zy: setting ignored: {c}"))
                .await;
        }
    }
}

/// The diagnostics of one version of a document.
struct Diagnosed {
    diagnostics: Vec<Diagnostic>,
    /// Above the size limit: syntax errors only.
    large: bool,
    bytes: usize,
    limit: u64,
}

/// The diagnostics of the open document `uri`, on a snapshot taken now (`None` if it is not
/// open or an edit cancelled the pass): all of them, or only its syntax errors when it is
/// larger than the limit set by [`MAX_FILE_KEY`].
fn diagnose(state: &Mutex<State>, uri: &Url) -> Option<Diagnosed> {
    let (analysis, file, doc, config, limit) = {
        let state = state.lock().unwrap_or_else(PoisonError::into_inner);
        let doc = state.docs.get(uri)?;
        let path = path_of(uri);
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
        let doc = Document::new(doc.text.clone(), doc.version);
        (
            state.host.analysis(),
            file,
            doc,
            config,
            state.settings.max_file_bytes,
        )
    };
    #[cfg(debug_assertions)]
    panic_if_asked(&doc.text);
    let large = doc.text.len() as u64 > limit;
    let found = if large {
        analysis.syntax_diagnostics(file)
    } else {
        analysis.check_static(file, &config)
    };
    let mut diagnostics: Vec<Diagnostic> = found
        .ok()?
        .into_iter()
        .map(|d| to_diagnostic(&doc, uri, d))
        .collect();
    if let Some(why) = too_large(doc.text.len(), limit) {
        let message = format!("zy only parses this file (syntax errors only): {why}");
        diagnostics.insert(
            0,
            note_at_start("large-file", DiagnosticSeverity::INFORMATION, message),
        );
    }
    Some(Diagnosed {
        diagnostics,
        large,
        bytes: doc.text.len(),
        limit,
    })
}

/// What the user is told once about a document above the size limit.
fn large_file_message(uri: &Url, d: &Diagnosed) -> String {
    let why = too_large(d.bytes, d.limit).unwrap_or_default();
    format!("zy only parses {uri} (syntax errors; no lints, type errors, hovers, lenses, inlay hints or gradients): {why}")
}

/// Why a document of `bytes` is only parsed, if it is larger than `limit`.
fn too_large(bytes: usize, limit: u64) -> Option<String> {
    (bytes as u64 > limit).then(|| {
        format!(
            "it has {bytes} bytes, more than the {} KiB of `{MAX_FILE_KEY}`",
            limit >> 10
        )
    })
}

/// The LSP kind of a completed name.
fn completion_kind(kind: CompletionKind) -> CompletionItemKind {
    match kind {
        CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Struct => CompletionItemKind::STRUCT,
        CompletionKind::Constant => CompletionItemKind::CONSTANT,
        CompletionKind::Module => CompletionItemKind::MODULE,
        CompletionKind::Field => CompletionItemKind::FIELD,
    }
}

/// The diagnostic that stands for a diagnostics pass that panicked.
fn internal_error(msg: &str) -> Diagnostic {
    let message =
        format!("zy's analysis failed internally ({msg}); it runs again at the next edit");
    note_at_start("internal-error", DiagnosticSeverity::ERROR, message)
}

/// A diagnostic about the whole file, at its start.
fn note_at_start(code: &str, severity: DiagnosticSeverity, message: String) -> Diagnostic {
    Diagnostic {
        range: Range::default(),
        severity: Some(severity),
        code: Some(NumberOrString::String(code.into())),
        source: Some("zy".into()),
        message,
        ..Diagnostic::default()
    }
}

/// Debug builds only, for the tests: panic in the diagnostics pass of a document that
/// contains the text of `ZY_LSP_TEST_PANIC`.
#[cfg(debug_assertions)]
fn panic_if_asked(text: &str) {
    if let Ok(marker) = std::env::var("ZY_LSP_TEST_PANIC") {
        if !marker.is_empty() && text.contains(&marker) {
            panic!("test panic on `{marker}`");
        }
    }
}

fn invalid(message: String) -> Error {
    Error::invalid_params(message)
}

/// The workspace path a document is analysed under.
/// The URI of a definition's file: a `file:` URI, or `zy-prelude:/Base.jl` for the prelude.
fn location_uri(loc: &zy_ide::Location) -> Option<Url> {
    if loc.is_prelude {
        let name = loc.path.file_name()?.to_str()?;
        Url::parse(&format!("{}:/{name}", ext::PRELUDE_SCHEME)).ok()
    } else {
        Url::from_file_path(&loc.path).ok()
    }
}

fn path_of(uri: &Url) -> PathBuf {
    uri.to_file_path()
        .unwrap_or_else(|_| PathBuf::from(uri.as_str()))
}

fn to_diagnostic(doc: &Document, uri: &Url, d: zy_ide::Diagnostic) -> Diagnostic {
    let related: Vec<DiagnosticRelatedInformation> = d
        .related
        .iter()
        .filter_map(|r| {
            // In this document, by its text; in another file, by line and column.
            let (uri, range) = if r.file == path_of(uri) {
                (uri.clone(), doc.range(r.start, r.end))
            } else {
                let at = Position::new(r.line.saturating_sub(1), r.col.saturating_sub(1));
                (Url::from_file_path(&r.file).ok()?, Range::new(at, at))
            };
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, range),
                message: r.message.clone(),
            })
        })
        .collect();
    Diagnostic {
        related_information: (!related.is_empty()).then_some(related),
        range: doc.range(d.start, d.end),
        severity: Some(match d.severity {
            zy_ide::Severity::Error => DiagnosticSeverity::ERROR,
            zy_ide::Severity::Warning => DiagnosticSeverity::WARNING,
            zy_ide::Severity::Note => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(d.code)),
        source: Some("zy".into()),
        message: d.message,
        ..Diagnostic::default()
    }
}

/// The text of a file that an open document includes, read from disk: only a regular file of at
/// most `limit` bytes (a named pipe or a device would block or never end), in UTF-8.
fn read_included(path: &std::path::Path, limit: u64) -> std::result::Result<String, String> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    })?;
    if !meta.is_file() {
        return Err("not a regular file".into());
    }
    if meta.len() > limit {
        return Err(format!(
            "{} bytes, more than the limit of {limit} (`{MAX_FILE_KEY}`)",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(limit.saturating_add(1)).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "it grew past the limit of {limit} bytes while being read"
        ));
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".into())
}

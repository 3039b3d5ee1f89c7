//! `kibitz lsp`: the language server on stdio (tower-lsp-server).
//!
//! Edits are applied to a document before a handler's first `.await`, so
//! the order the client sent them is the order they land in. Diagnostics
//! carry the document version they were computed for and are dropped if a
//! newer version exists by the time they would be sent.

mod convert;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService, Server};

use crate::formats::{self, Format};
use crate::model::Settings;
use crate::text::PositionEncoding;
use crate::workspace::AnalyzedDocument;

/// Documents larger than this are analysed with the runtime told the
/// worker thread will block for a while.
const BIG_EDIT_BYTES: usize = 64 * 1024;

/// How long a handler waits for the client to answer a server request. The
/// read loop stops at `exit`, so an answer sent after it never comes; an
/// unbounded wait would keep the process alive.
const CLIENT_REPLY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

struct DocState {
    version: i32,
    analysis: AnalyzedDocument,
}

struct DocEntry {
    state: Mutex<DocState>,
    /// Serialises publishing so a stale version can never overtake a newer one.
    publish: tokio::sync::Mutex<()>,
}

#[derive(Default)]
struct Config {
    encoding: PositionEncoding,
    /// Settings from `kibitz.toml` in the workspace root.
    file_settings: Option<Value>,
    settings: Settings,
    client_has_configuration: bool,
}

pub struct Backend {
    client: Client,
    docs: Mutex<HashMap<Uri, Arc<DocEntry>>>,
    config: RwLock<Config>,
}

pub async fn run_stdio() {
    let stdin = tokio::io::stdin();
    let stdout = tokio::io::stdout();
    let (service, socket) = LspService::new(|client| Backend {
        client,
        docs: Mutex::new(HashMap::new()),
        config: RwLock::new(Config::default()),
    });
    Server::new(stdin, stdout, socket).serve(service).await;
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs heavy synchronous work without starving the async runtime, while
/// still completing before the calling handler's first `.await`.
fn blocking<R>(heavy: bool, work: impl FnOnce() -> R) -> R {
    if heavy
        && tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread)
    {
        tokio::task::block_in_place(work)
    } else {
        work()
    }
}

impl Backend {
    fn encoding(&self) -> PositionEncoding {
        self.config.read().map(|c| c.encoding).unwrap_or_default()
    }

    fn settings(&self) -> Settings {
        self.config.read().map(|c| c.settings.clone()).unwrap_or_default()
    }

    fn entry(&self, uri: &Uri) -> Option<Arc<DocEntry>> {
        lock(&self.docs).get(uri).cloned()
    }

    /// Runs `query` on the current state of an open document.
    fn with_doc<R>(&self, uri: &Uri, query: impl FnOnce(&AnalyzedDocument, PositionEncoding) -> R) -> Option<R> {
        let entry = self.entry(uri)?;
        let state = lock(&entry.state);
        Some(query(&state.analysis, self.encoding()))
    }

    fn lsp_diagnostics(&self, uri: &Uri, analysis: &AnalyzedDocument) -> Vec<Diagnostic> {
        let enc = self.encoding();
        let settings = self.settings();
        let doc = analysis.document();
        analysis
            .diagnostics_with(&settings)
            .iter()
            .map(|(d, sev)| convert::diagnostic(doc, uri, d, *sev, enc))
            .collect()
    }

    async fn publish(&self, uri: Uri, entry: Arc<DocEntry>, version: i32, diagnostics: Vec<Diagnostic>) {
        let _turn = entry.publish.lock().await;
        if lock(&entry.state).version != version {
            return;
        }
        self.client.publish_diagnostics(uri, diagnostics, Some(version)).await;
    }

    async fn republish_all(&self) {
        let entries: Vec<(Uri, Arc<DocEntry>)> = lock(&self.docs).iter().map(|(u, e)| (u.clone(), e.clone())).collect();
        for (uri, entry) in entries {
            let (version, diags) = {
                let state = lock(&entry.state);
                (state.version, self.lsp_diagnostics(&uri, &state.analysis))
            };
            self.publish(uri, entry, version, diags).await;
        }
    }

    /// Re-reads the editor's settings: asked through `workspace/configuration`
    /// when the client supports it, else taken from what the client pushed
    /// with `didChangeConfiguration` (`pushed`, its `kibitz` section or the whole object).
    async fn refresh_settings(&self, pushed: Option<Value>) {
        let (ask_client, file_settings) = {
            let c = self.config.read().unwrap_or_else(|p| p.into_inner());
            (c.client_has_configuration, c.file_settings.clone())
        };
        let mut merged = file_settings.unwrap_or(Value::Null);
        if !ask_client && let Some(mut pushed) = pushed {
            let section = pushed.get_mut("kibitz").map(Value::take).unwrap_or(pushed);
            merge_json(&mut merged, section);
        }
        if ask_client {
            let item = ConfigurationItem {
                scope_uri: None,
                section: Some("kibitz".to_string()),
            };
            if let Ok(Ok(mut values)) =
                tokio::time::timeout(CLIENT_REPLY_TIMEOUT, self.client.configuration(vec![item])).await
                && let Some(editor) = values.pop()
            {
                merge_json(&mut merged, editor);
            }
        }
        let (settings, problems) = Settings::from_json(&merged);
        for p in problems {
            self.client
                .log_message(MessageType::WARNING, format!("kibitz settings: {p}"))
                .await;
        }
        if let Ok(mut c) = self.config.write() {
            c.settings = settings;
        }
    }
}

/// Editor settings override `kibitz.toml`, key by key.
fn merge_json(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge_json(b.entry(k).or_insert(Value::Null), v);
            }
        }
        (b, Value::Null) if !b.is_null() => {}
        (b, o) => *b = o,
    }
}

fn format_for(language_id: &str, uri: &Uri, text: &str) -> Option<&'static dyn Format> {
    let path = uri.to_file_path().map(|p| p.into_owned());
    formats::by_language_id(language_id).or_else(|| formats::detect(path.as_deref(), text))
}

fn read_kibitz_toml(root: &std::path::Path) -> std::result::Result<Option<Value>, String> {
    let path = root.join("kibitz.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    crate::model::settings::toml_to_json(&text)
        .map(Some)
        .map_err(|e| format!("{}: {e}", path.display()))
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let offers_utf8 = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|encs| encs.contains(&PositionEncodingKind::UTF8));
        let encoding = if offers_utf8 {
            PositionEncoding::Utf8
        } else {
            PositionEncoding::Utf16
        };
        let root = params
            .workspace_folders
            .as_ref()
            .and_then(|f| f.first())
            .and_then(|f| f.uri.to_file_path().map(|p| p.into_owned()))
            .or_else(|| {
                #[allow(deprecated)]
                params
                    .root_uri
                    .as_ref()
                    .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
            });
        let file_settings = root.as_deref().map(read_kibitz_toml).transpose();
        let mut warning = None;
        if let Ok(mut c) = self.config.write() {
            c.encoding = encoding;
            c.client_has_configuration = params
                .capabilities
                .workspace
                .as_ref()
                .and_then(|w| w.configuration)
                .unwrap_or(false);
            match file_settings {
                Ok(v) => c.file_settings = v.flatten(),
                Err(e) => warning = Some(e),
            }
            c.settings = Settings::from_json(c.file_settings.as_ref().unwrap_or(&Value::Null)).0;
        }
        if let Some(w) = warning {
            self.client
                .log_message(MessageType::WARNING, format!("kibitz.toml ignored: {w}"))
                .await;
        }
        let quickfix = CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..Default::default()
        });
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "kibitz".to_string(),
                version: Some(env!("CARGO_PKG_VERSION").to_string()),
            }),
            capabilities: ServerCapabilities {
                position_encoding: Some(if offers_utf8 {
                    PositionEncodingKind::UTF8
                } else {
                    PositionEncodingKind::UTF16
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::INCREMENTAL)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![" ".to_string()]),
                    ..Default::default()
                }),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                document_formatting_provider: Some(OneOf::Left(true)),
                document_range_formatting_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                code_action_provider: Some(quickfix),
                inlay_hint_provider: Some(OneOf::Left(true)),
                semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
                    SemanticTokensOptions {
                        legend: convert::token_legend(),
                        range: Some(true),
                        full: Some(SemanticTokensFullOptions::Bool(true)),
                        ..Default::default()
                    },
                )),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.refresh_settings(None).await;
        self.republish_all().await;
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let Some(format) = format_for(&doc.language_id, &doc.uri, &doc.text) else {
            return;
        };
        let analysis = blocking(doc.text.len() > BIG_EDIT_BYTES, || {
            AnalyzedDocument::new(format, &doc.text)
        });
        drop(doc.text);
        let diags = self.lsp_diagnostics(&doc.uri, &analysis);
        let entry = Arc::new(DocEntry {
            state: Mutex::new(DocState {
                version: doc.version,
                analysis,
            }),
            publish: tokio::sync::Mutex::new(()),
        });
        lock(&self.docs).insert(doc.uri.clone(), entry.clone());
        self.publish(doc.uri, entry, doc.version, diags).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let Some(entry) = self.entry(&uri) else { return };
        let enc = self.encoding();
        let heavy = params
            .content_changes
            .iter()
            .any(|c| c.range.is_none() || c.text.len() > BIG_EDIT_BYTES);
        let (version, diags) = blocking(heavy, || {
            let mut state = lock(&entry.state);
            for change in params.content_changes {
                let range = match change.range {
                    Some(r) => convert::span(state.analysis.document(), r, enc),
                    None => 0..state.analysis.document().len(),
                };
                state.analysis.apply_edit(range, &change.text);
            }
            state.version = params.text_document.version;
            (state.version, self.lsp_diagnostics(&uri, &state.analysis))
        });
        self.publish(uri, entry, version, diags).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        let entry = lock(&self.docs).remove(&uri);
        let _turn = match &entry {
            Some(entry) => {
                let turn = entry.publish.lock().await;
                // No publish of the closed document passes the version check any more.
                lock(&entry.state).version = i32::MIN;
                Some(turn)
            }
            None => None,
        };
        self.client.publish_diagnostics(uri, Vec::new(), None).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.refresh_settings(Some(params.settings)).await;
        self.republish_all().await;
        let _ = tokio::time::timeout(CLIENT_REPLY_TIMEOUT, self.client.inlay_hint_refresh()).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let settings = self.settings();
        Ok(self
            .with_doc(&p.text_document.uri, |a, enc| {
                let doc = a.document();
                let info = a.hover(convert::offset(doc, p.position, enc), &settings)?;
                Some(Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: info.markdown,
                    }),
                    range: Some(convert::range(doc, &info.span, enc)),
                })
            })
            .flatten())
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        Ok(self.with_doc(&p.text_document.uri, |a, enc| {
            let doc = a.document();
            let items = a.complete(convert::offset(doc, p.position, enc));
            let items = items
                .iter()
                .enumerate()
                .map(|(i, item)| convert::completion(doc, item, i, enc))
                .collect();
            CompletionResponse::List(CompletionList {
                is_incomplete: false,
                items,
            })
        }))
    }

    async fn formatting(&self, params: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            blocking(true, || a.format_edits(None))
                .iter()
                .map(|e| convert::text_edit(a.document(), e, enc))
                .collect()
        }))
    }

    async fn range_formatting(&self, params: DocumentRangeFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            let range = convert::span(a.document(), params.range, enc);
            a.format_edits(Some(range))
                .iter()
                .map(|e| convert::text_edit(a.document(), e, enc))
                .collect()
        }))
    }

    async fn document_symbol(&self, params: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            let doc = a.document();
            #[allow(deprecated)]
            let symbols = a
                .symbols()
                .into_iter()
                .map(|s| DocumentSymbol {
                    name: s.name,
                    detail: Some(s.detail),
                    kind: SymbolKind::EVENT,
                    tags: None,
                    deprecated: None,
                    range: convert::range(doc, &s.span, enc),
                    selection_range: convert::range(doc, &s.selection, enc),
                    children: None,
                })
                .collect();
            DocumentSymbolResponse::Nested(symbols)
        }))
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            let doc = a.document();
            a.folds()
                .iter()
                .filter_map(|span| {
                    let (start, end) = (
                        convert::position(doc, span.start, enc),
                        convert::position(doc, span.end, enc),
                    );
                    (end.line > start.line).then(|| FoldingRange {
                        start_line: start.line,
                        end_line: end.line,
                        kind: Some(FoldingRangeKind::Region),
                        ..Default::default()
                    })
                })
                .collect()
        }))
    }

    async fn semantic_tokens_full(&self, params: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            let data = convert::semantic_tokens(a.document(), &a.tokens(None), enc);
            SemanticTokensResult::Tokens(SemanticTokens { result_id: None, data })
        }))
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokensRangeResult>> {
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            let range = convert::span(a.document(), params.range, enc);
            let data = convert::semantic_tokens(a.document(), &a.tokens(Some(range)), enc);
            SemanticTokensRangeResult::Tokens(SemanticTokens { result_id: None, data })
        }))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let settings = self.settings();
        Ok(self.with_doc(&uri, |a, enc| {
            let doc = a.document();
            let wanted = convert::span(doc, params.range, enc);
            let mut actions = Vec::new();
            for (d, sev) in a.diagnostics_with(&settings) {
                let touches = d.span.start <= wanted.end && wanted.start <= d.span.end;
                if !touches || d.fixes.is_empty() {
                    continue;
                }
                let lsp_diag = convert::diagnostic(doc, &uri, &d, sev, enc);
                let single = d.fixes.len() == 1;
                for fix in &d.fixes {
                    let edits = fix.edits.iter().map(|e| convert::text_edit(doc, e, enc)).collect();
                    actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                        title: fix.title.clone(),
                        kind: Some(CodeActionKind::QUICKFIX),
                        diagnostics: Some(vec![lsp_diag.clone()]),
                        edit: Some(WorkspaceEdit {
                            changes: Some(HashMap::from([(uri.clone(), edits)])),
                            ..Default::default()
                        }),
                        is_preferred: Some(single),
                        ..Default::default()
                    }));
                }
            }
            actions
        }))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        if !self.settings().inlay_hints {
            return Ok(Some(Vec::new()));
        }
        Ok(self.with_doc(&params.text_document.uri, |a, enc| {
            let doc = a.document();
            let range = convert::span(doc, params.range, enc);
            a.inlay_hints(range)
                .into_iter()
                .map(|h| InlayHint {
                    position: convert::position(doc, h.offset, enc),
                    label: InlayHintLabel::String(h.label),
                    kind: None,
                    text_edits: None,
                    tooltip: None,
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                })
                .collect()
        }))
    }
}

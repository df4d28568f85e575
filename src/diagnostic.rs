//! Compiler-style rendering of texlate's errors: the file name, line and column, the
//! offending source line with a caret under the token and what was expected, as text (with
//! or without colour, via [`annotate_snippets`]) or as JSON for tools.
//!
//! Errors about a text input always point at a line and column; byte offsets appear only for
//! binary inputs.
//!
//! ```
//! use texlate::diagnostic::{Diagnostic, Input};
//! use texlate::Isa;
//!
//! let text = "ps_5_0\nsample r0.xyzw, r1.xyxx, t0.xyzw, foo\n";
//! let error = texlate::decode(Isa::Dxbc, text.as_bytes()).unwrap_err();
//! let diagnostic = Diagnostic::from_error(&error, &Input::text("shader.asm", text), &[]);
//! let rendered = diagnostic.render(false);
//! assert!(rendered.contains("--> shader.asm:2:35"), "{rendered}");
//! assert!(rendered.contains("^^^"), "{rendered}");
//! assert_eq!(diagnostic.line, Some(2));
//! assert!(diagnostic.to_json().contains(r#""kind":"parse""#));
//! ```

use annotate_snippets::{Level, Renderer, Snippet};
use serde::Serialize;

use crate::error::{Error, Location};
use crate::ir::Isa;

/// An input a diagnostic can quote: its name and, for a text input, its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Input<'a> {
    /// The name shown in messages (a path, `<stdin>`, `<input>`).
    pub name: &'a str,
    /// The text, or `None` for a binary input.
    pub text: Option<&'a str>,
}

impl<'a> Input<'a> {
    /// A text input.
    pub fn text(name: &'a str, text: &'a str) -> Self {
        Input {
            name,
            text: Some(text),
        }
    }

    /// A binary input (diagnostics give byte offsets).
    pub fn binary(name: &'a str) -> Self {
        Input { name, text: None }
    }

    /// Text or binary as [`crate::decode`] reads `bytes` of `isa`.
    pub fn detect(isa: Isa, name: &'a str, bytes: &'a [u8]) -> Self {
        if crate::isa::codec(isa).looks_binary(bytes) {
            return Input::binary(name);
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Input::text(name, text),
            Err(_) => Input::binary(name),
        }
    }
}

/// What kind of failure a [`Diagnostic`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A text input that does not parse.
    Parse,
    /// A binary input that does not decode.
    Decode,
    /// An instruction that breaks a rule of its ISA.
    Validation,
    /// A request texlate cannot carry out.
    Unsupported,
    /// A malformed bindings or register-map file.
    Config,
    /// An input that is not what the command reads (e.g. text given to `disasm`).
    Input,
    /// The semantic check could not run or found a disagreement.
    Check,
    /// A file could not be read or written.
    Io,
}

/// One error, located and explained, ready to render as text or JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// Always `"error"`.
    pub severity: &'static str,
    /// The kind of failure.
    pub kind: Kind,
    /// The headline, without location.
    pub message: String,
    /// The file the error is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Line (1-based) in a text input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Column (1-based, in characters) in a text input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// The offending token as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// What was expected there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// The ISA rule broken (validation errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Byte offset in a binary input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// What would make it work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// The source line quoted, and the byte range of the token in it.
    #[serde(skip)]
    quote: Option<(String, std::ops::Range<usize>)>,
}

impl Diagnostic {
    /// A diagnostic with a message only (no location).
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: "error",
            kind,
            message: message.into(),
            file: None,
            line: None,
            column: None,
            token: None,
            expected: None,
            rule: None,
            offset: None,
            help: None,
            quote: None,
        }
    }

    /// The same diagnostic, naming `file`.
    pub fn in_file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// The same diagnostic, with a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The diagnostic of `error`, raised reading `input`; `config` holds the bindings and
    /// register-map files by the names their [`crate::error::ConfigError`]s use.
    pub fn from_error(error: &Error, input: &Input<'_>, config: &[Input<'_>]) -> Self {
        match error {
            Error::Parse(e) => {
                let found = if e.token.is_empty() {
                    "the end of the line".to_string()
                } else {
                    format!("`{}`", e.token)
                };
                let mut d = Diagnostic::new(
                    Kind::Parse,
                    format!("expected {}, found {found}", e.expected),
                );
                d.token = Some(e.token.clone());
                d.expected = Some(e.expected.clone());
                d.locate_text(input, e.line, e.column, Some(&e.token))
            }
            Error::Decode(e) => {
                let mut d = Diagnostic::new(Kind::Decode, e.reason.clone()).in_file(input.name);
                // A text input never speaks in byte offsets (the offset is of an encoding).
                if input.text.is_none() {
                    d.offset = Some(e.offset);
                }
                d
            }
            Error::Validation(e) => {
                let mut d = Diagnostic::new(Kind::Validation, e.detail.clone());
                d.rule = Some(e.rule.to_string());
                d.locate(input, e.location)
            }
            Error::Unsupported(e) => {
                let d = Diagnostic::new(
                    Kind::Unsupported,
                    format!("{} is not supported from {} to {}", e.what, e.from, e.to),
                )
                .with_help(e.why.clone());
                match e.at {
                    Some(at) => d.locate(input, at),
                    None => d.in_file(input.name),
                }
            }
            Error::Config(e) => {
                let d = Diagnostic::new(Kind::Config, e.reason.clone());
                match config.iter().find(|c| c.name == e.file) {
                    Some(file) => d.locate_text(file, e.line, e.column, None),
                    None => {
                        let mut d = d.in_file(e.file.clone());
                        d.line = Some(e.line);
                        d.column = Some(e.column);
                        d
                    }
                }
            }
        }
    }

    fn locate(self, input: &Input<'_>, at: Location) -> Self {
        match (at, input.text) {
            (Location::Text { line, column }, _) => self.locate_text(input, line, column, None),
            // A text input never speaks in byte offsets: a position-less error of a text
            // input names the file only.
            (Location::Binary { .. }, Some(_)) => self.in_file(input.name),
            (Location::Binary { offset }, None) => {
                let mut d = self.in_file(input.name);
                d.offset = Some(offset);
                d
            }
        }
    }

    fn locate_text(
        mut self,
        input: &Input<'_>,
        line: u32,
        column: u32,
        token: Option<&str>,
    ) -> Self {
        self.file = Some(input.name.to_string());
        self.line = Some(line);
        self.column = Some(column);
        let Some(text) = input.text else {
            return self;
        };
        let Some(source) = line
            .checked_sub(1)
            .and_then(|k| text.lines().nth(k as usize))
        else {
            return self;
        };
        let source = source.trim_end_matches('\r');
        let range = match column.checked_sub(1) {
            // Column 0: the whole line.
            None => {
                let start = source.len() - source.trim_start().len();
                start..source.len()
            }
            Some(c) => {
                let mut start = source
                    .char_indices()
                    .nth(c as usize)
                    .map_or(source.len(), |(i, _)| i);
                if token.is_none_or(str::is_empty) {
                    // A location without a token points at an instruction: skip to its text.
                    start = source.len() - source[start..].trim_start().len();
                    self.column = Some(source[..start].chars().count() as u32 + 1);
                }
                let rest = &source[start..];
                let len = match token {
                    Some(t) if !t.is_empty() && rest.starts_with(t) => t.len(),
                    _ => rest
                        .find(|ch: char| ch.is_whitespace() || ch == ',')
                        .unwrap_or(rest.len()),
                };
                if self.token.is_none() && len > 0 {
                    self.token = Some(rest[..len].to_string());
                }
                start..start + len
            }
        };
        self.quote = Some((source.to_string(), range));
        self
    }

    /// The diagnostic as a compiler prints it; `color` adds ANSI styles (for a terminal).
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let label = match (&self.expected, &self.rule) {
            (Some(expected), _) => format!("expected {expected}"),
            (None, Some(rule)) => format!("breaks `{rule}`"),
            _ => String::new(),
        };
        let mut notes = Vec::new();
        if self.quote.is_none() {
            match (&self.file, self.line, self.column, self.offset) {
                (Some(f), Some(l), Some(c), _) => notes.push(format!("in {f}:{l}:{c}")),
                (Some(f), None, None, Some(o)) => {
                    notes.push(format!("at byte offset {o:#x} of {f}"))
                }
                (Some(f), None, None, None) => notes.push(format!("in {f}")),
                (None, _, _, Some(o)) => notes.push(format!("at byte offset {o:#x}")),
                _ => {}
            }
        }
        let title = self.message.clone();
        let mut message = Level::Error.title(&title);
        if let Some(rule) = &self.rule {
            message = message.id(rule);
        }
        let origin = self.file.clone().unwrap_or_default();
        if let (Some((source, range)), Some(line)) = (&self.quote, self.line) {
            message = message.snippet(
                Snippet::source(source)
                    .line_start(line as usize)
                    .origin(&origin)
                    .annotation(Level::Error.span(range.clone()).label(&label)),
            );
        }
        for note in &notes {
            message = message.footer(Level::Note.title(note));
        }
        if let Some(help) = &self.help {
            message = message.footer(Level::Help.title(help));
        }
        format!("{}\n", renderer.render(message))
    }

    /// The diagnostic as one line of JSON (`severity`, `kind`, `message`, and `file`, `line`,
    /// `column`, `token`, `expected`, `rule`, `offset`, `help` where known).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a diagnostic serializes")
    }
}

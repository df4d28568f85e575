//! Batch mode: many inputs in one call, in parallel, each written whole to its own output
//! (`texlate translate … IN... -o OUTDIR`, `texlate disasm … IN... -o OUTDIR`).
//!
//! A batch is planned, then run:
//! - [`plan`] expands directories into the files they hold for the [`Job`] (by extension,
//!   `mappings/files.toml`; [`file_names_markdown`] renders the table), names each output
//!   `OUTDIR/<input stem>.<extension>` (a file below a directory keeps its subdirectory:
//!   `DIR/sub/x.sass` → `OUTDIR/sub/x.<ext>`), and refuses, file by file, inputs that would
//!   share an output (the same subdirectory and stem: `a/x.sass` and `b/x.sass`, or `x.sass`
//!   and `x.bin` of one directory, are both refused, neither written) or overwrite an input
//!   of the batch. A file named twice is taken once.
//! - [`run`] processes the files in parallel (rayon; the pool in force, so
//!   `RAYON_NUM_THREADS` or [`rayon::ThreadPool::install`] set the threads). A failing file
//!   never stops the batch: its [`Diagnostic`] (file, line and column or byte offset) is in
//!   its [`FileResult`], handed to a callback as soon as the file is done. Each output is
//!   written whole to a temporary file renamed into place ([`write_atomic`]).
//!
//! The work on one input — [`translate_input`], [`disasm_to`] — is what the command line
//! does to a single input too, so a batch's outputs are byte-identical to single runs.
//!
//! ```
//! use texlate::batch::{self, Job};
//! use texlate::translate::Options;
//! use texlate::Isa;
//!
//! let dir = std::env::temp_dir().join(format!("texlate-batch-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! std::fs::write(dir.join("good.sass"), "TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n")?;
//! std::fs::write(dir.join("bad.sass"), "TEXS R6, R4, R4, R5, 0x6e, 9D, RGBA\n")?;
//! let job = Job::Translate(Box::new(Options::new(Isa::Nvidia, Isa::Dxbc)));
//! let plan = batch::plan(job, &[dir.clone()], &dir.join("out"))?;
//! let summary = batch::run(&plan, &|_| {})?;
//! assert_eq!((summary.files, summary.written, summary.errors), (2, 1, 1));
//! assert!(dir.join("out/good.asm").is_file());
//! let bad = summary.results.iter().find_map(|r| r.error.as_ref()).unwrap();
//! assert_eq!(bad.file.as_deref(), Some(dir.join("bad.sass").to_str().unwrap()));
//! assert_eq!((bad.line, bad.column), (Some(1), Some(28)));
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{self, BufRead, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Serialize, Serializer};

use crate::diagnostic::{Diagnostic, Input, Kind};
use crate::ir::{Isa, Item, Program};
use crate::isa::{self, visa};
use crate::mappings::files;
use crate::stream::{self, StreamError};
use crate::translate;
use crate::{Error, Form, ReadOptions};

// ---------------------------------------------------------------------------------------
// One input

/// How much a [`Note`] matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteLevel {
    /// Something read although a rule forbids it.
    Warning,
    /// Something left out of the output on purpose.
    Note,
}

/// A warning or note about an input that does not stop it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Note {
    /// How much it matters.
    pub level: NoteLevel,
    /// What it says.
    pub message: String,
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            NoteLevel::Warning => "warning",
            NoteLevel::Note => "note",
        };
        write!(f, "{level}: {}", self.message)
    }
}

/// What one input became.
#[derive(Clone, Debug)]
pub struct Output {
    /// The output bytes.
    pub bytes: Vec<u8>,
    /// Items the input's codec read: texture and other instructions, declarations and
    /// labels of a text input, NVIDIA's bundle control words.
    pub instructions: usize,
    /// The texture instructions among them.
    pub texture_instructions: usize,
}

fn counts(program: &Program) -> (usize, usize) {
    let tex = program
        .items
        .iter()
        .filter(|i| matches!(i, Item::Tex(_)))
        .count();
    (program.items.len(), tex)
}

/// The diagnostic of `error`, raised reading the input `name` (`bytes`) as `isa`, with the
/// bindings and register-map files of `options`.
pub fn diagnose(
    isa: Isa,
    name: &str,
    bytes: &[u8],
    options: Option<&translate::Options>,
    error: &Error,
) -> Diagnostic {
    let input = Input::detect(isa, name, bytes);
    let config: Vec<Input<'_>> = options
        .into_iter()
        .flat_map(|o| [&o.bindings, &o.regmap])
        .flatten()
        .map(|(name, text)| Input::text(name, text))
        .collect();
    Diagnostic::from_error(error, &input, &config)
}

/// A vISA `.isa` container is read (its kernels and sampler instructions), and refused for
/// translation with what IGC 12504's writer cut from its first sampler instruction.
pub fn refuse_isa_container(from: Isa, name: &str, bytes: &[u8]) -> Result<(), Box<Diagnostic>> {
    if from == Isa::Visa && visa::is_isa_container(bytes) {
        let e = match visa::decode_isa_container(bytes) {
            Ok(c) => visa::container_refusal(&c),
            Err(e) => e,
        };
        return Err(Box::new(diagnose(from, name, bytes, None, &e)));
    }
    Ok(())
}

/// What a vISA text breaks although IGC 1.0.12504 writes it (read by default, refused by
/// [`ReadOptions::igc_compatible`] off): the strict reading's refusal, as a warning.
pub fn igc_relaxation_warning(isa: Isa, bytes: &[u8], options: ReadOptions) -> Option<String> {
    if isa != Isa::Visa || !options.igc_compatible || isa::codec(isa).looks_binary(bytes) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let e = crate::parse_text_with(isa, text, ReadOptions::default()).err()?;
    Some(relaxation_warning(&e))
}

/// The warning about an input read IGC's way that a strict reading refuses with `e`.
fn relaxation_warning(e: &Error) -> String {
    format!("{e} (IGC 1.0.12504 writes this itself, so it is read; --strict refuses it)")
}

/// The input decoded as [`crate::decode_with`] does, with [`igc_relaxation_warning`]'s
/// warning: vISA text read IGC's way is read once (`visa::parse_text_relaxed`), not once
/// strictly for the warning and again for the program.
fn decode_warned(
    isa: Isa,
    bytes: &[u8],
    options: ReadOptions,
) -> (Result<Program, Error>, Option<String>) {
    let relaxed_text =
        (isa == Isa::Visa && options.igc_compatible && !isa::codec(isa).looks_binary(bytes))
            .then(|| std::str::from_utf8(bytes).ok())
            .flatten();
    match relaxed_text {
        Some(text) => {
            let (program, strict_refusal) = visa::parse_text_relaxed(text);
            (program, strict_refusal.as_ref().map(relaxation_warning))
        }
        None => (
            crate::decode_with(isa, bytes, options),
            igc_relaxation_warning(isa, bytes, options),
        ),
    }
}

/// vISA binary output holds texture instructions only: declarations and other instructions
/// of a `.visaasm` file have no encoding here. The note saying so, when lines are left out.
pub fn unencoded_lines_note(isa: Isa, form: Form, program: &Program) -> Option<String> {
    if isa != Isa::Visa || form != Form::Binary {
        return None;
    }
    // ALU instructions read from text stay text lines here too.
    let skipped = program
        .alu_as_read()
        .items
        .iter()
        .filter(|i| matches!(i, Item::Opaque(_)))
        .count();
    (skipped > 0).then(|| {
        format!(
            "{skipped} non-texture lines (declarations, other instructions) have no vISA binary form here and are not in the output"
        )
    })
}

/// Translates one input (`name` for messages, its `bytes`) as `translate` does: the output
/// (its bytes moved into the [`Output`]), the translation without its output, and its Report
/// when `report` asks for it (otherwise nothing is kept for one:
/// [`translate::translate_program_output`]); warnings and notes go to `notes`, also when the
/// input then fails.
pub fn translate_input(
    name: &str,
    bytes: &[u8],
    options: &translate::Options,
    report: bool,
    notes: &mut Vec<Note>,
) -> Result<(Output, translate::Translated, Option<translate::Report>), Box<Diagnostic>> {
    refuse_isa_container(options.from, name, bytes)?;
    let (source, warning) = decode_warned(options.from, bytes, options.read);
    notes.extend(warning.map(|message| Note {
        level: NoteLevel::Warning,
        message,
    }));
    let fail = |e: Error| Box::new(diagnose(options.from, name, bytes, Some(options), &e));
    let source = source.map_err(fail)?;
    let (instructions, texture_instructions) = counts(&source);
    let (mut t, report) = if report {
        let t = translate::translate_program(source, options).map_err(fail)?;
        let report = t.report();
        (translate::Translated::from(t), Some(report))
    } else {
        let t = translate::translate_program_output(source, options).map_err(fail)?;
        (t, None)
    };
    notes.extend(report_warnings(&t.warnings));
    let warnings = isa::codec(options.to).encode_warnings(&t.program, options.emit);
    notes.extend(warnings.into_iter().map(|message| Note {
        level: NoteLevel::Warning,
        message,
    }));
    if options.from == options.to {
        let note = unencoded_lines_note(options.to, options.emit, &t.program);
        notes.extend(note.map(|message| Note {
            level: NoteLevel::Note,
            message,
        }));
    }
    let output = Output {
        bytes: std::mem::take(&mut t.output),
        instructions,
        texture_instructions,
    };
    Ok((output, t, report))
}

/// The Report's warnings shown with a translation (what it could not keep exactly): the first
/// [`REPORT_WARNINGS_SHOWN`] of them, then how many more the Report holds.
fn report_warnings(warnings: &[String]) -> Vec<Note> {
    let shown = warnings.iter().take(REPORT_WARNINGS_SHOWN).map(|w| Note {
        level: NoteLevel::Warning,
        message: w.clone(),
    });
    let rest = warnings.len().saturating_sub(REPORT_WARNINGS_SHOWN);
    let more = (rest > 0).then(|| Note {
        level: NoteLevel::Warning,
        message: format!(
            "{rest} more warning(s) like these: `texlate explain` or `--json` lists them all"
        ),
    });
    shown.chain(more).collect()
}

/// How many of a translation's Report warnings are shown before a count of the rest.
pub const REPORT_WARNINGS_SHOWN: usize = 5;

/// Why one input failed: rejected (located), or an I/O error reading it or writing its
/// output.
#[derive(Debug)]
pub enum FileError {
    /// The input was rejected: the diagnostic says where and why.
    Rejected(Box<Diagnostic>),
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
}

impl From<Box<Diagnostic>> for FileError {
    fn from(d: Box<Diagnostic>) -> Self {
        FileError::Rejected(d)
    }
}

impl FileError {
    /// The failure as a diagnostic, naming `input` or `output` in an I/O error.
    pub fn diagnostic(self, input: &str, output: &str) -> Diagnostic {
        match self {
            FileError::Rejected(d) => *d,
            FileError::Read(e) => Diagnostic::new(Kind::Io, format!("reading {input}: {e}")),
            FileError::Write(e) => Diagnostic::new(Kind::Io, format!("writing {output}: {e}")),
        }
    }
}

/// A `disasm` input: read whole, or left in its file to stream from.
pub enum DisasmInput {
    /// The whole input (standard input, a text file, a vISA container, a small binary ...).
    Whole(Vec<u8>),
    /// A file whose first 64 KiB hold a zero byte (so it is no text) and no vISA container
    /// magic: decoded and printed as it is read ([`crate::stream::disasm`]).
    Streamed {
        /// The file, to read the input again for a diagnostic.
        path: PathBuf,
        /// The open file.
        file: io::BufReader<fs::File>,
    },
}

impl DisasmInput {
    /// Opens the file at `path` for `disasm`.
    pub fn open(path: &Path) -> io::Result<Self> {
        const PREFIX: u64 = 1 << 16;
        let mut file = fs::File::open(path)?;
        let len = file.metadata()?.len();
        let mut bytes = Vec::with_capacity(len.min(PREFIX) as usize + 1);
        (&mut file).take(PREFIX).read_to_end(&mut bytes)?;
        // A file shorter than the prefix is read whole already: reading it again as a stream
        // would cost a rewind and a second read for the same output.
        if (bytes.len() as u64) < PREFIX {
            return Ok(DisasmInput::Whole(bytes));
        }
        if bytes.contains(&0) && !visa::is_isa_container(&bytes) {
            file.rewind()?;
            return Ok(DisasmInput::Streamed {
                path: path.to_path_buf(),
                file: io::BufReader::new(file),
            });
        }
        file.read_to_end(&mut bytes)?;
        Ok(DisasmInput::Whole(bytes))
    }
}

impl DisasmInput {
    /// The first bytes of the input (all of a whole one, what the buffer holds of a streamed
    /// one: its container magic), leaving it unread.
    fn head(&mut self) -> Result<&[u8], FileError> {
        match self {
            DisasmInput::Whole(bytes) => Ok(bytes),
            DisasmInput::Streamed { file, .. } => file.fill_buf().map_err(FileError::Read),
        }
    }
}

/// A writer that remembers whether writing failed, to tell the output's I/O errors from
/// the input's in a stream.
struct Tracked<'a> {
    inner: &'a mut dyn Write,
    failed: bool,
}

impl Write for Tracked<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf).inspect_err(|_| self.failed = true)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush().inspect_err(|_| self.failed = true)
    }
}

/// Prints one binary input of `isa` (`name` for messages) as text into `out`, as `disasm`
/// does: a vISA `.isa` container as what its writer kept ([`disasm_special`]), a text input
/// refused, a binary decoded and printed instruction by instruction
/// ([`crate::stream::disasm`]). Returns the items and texture instructions read.
pub fn disasm_to(
    isa: Isa,
    name: &str,
    input: DisasmInput,
    out: &mut dyn Write,
) -> Result<(usize, usize), FileError> {
    disasm_to_with(isa, name, input, ReadOptions::default(), out)
}

/// [`disasm_to`] as `read` says (NVIDIA: the words decoded for `read.sm`).
pub fn disasm_to_with(
    isa: Isa,
    name: &str,
    input: DisasmInput,
    read: ReadOptions,
    out: &mut dyn Write,
) -> Result<(usize, usize), FileError> {
    if let DisasmInput::Whole(bytes) = &input {
        if let Some(o) = disasm_special(isa, name, bytes)? {
            out.write_all(&o.bytes)
                .and_then(|()| out.flush())
                .map_err(FileError::Write)?;
            return Ok((o.instructions, o.texture_instructions));
        }
    }
    stream_to(isa, name, input, out, |input, out| {
        stream::disasm_with(isa, input, read, out)
    })
}

/// The identity translation of one input of `isa` into `out`, as `translate --from X --to X`
/// writes it, streamed where the codec streams it ([`crate::stream::transcode`]: an NVIDIA
/// word stream to binary is checked and copied word by word, in flat memory). Returns the
/// items and texture instructions read.
pub fn transcode_to_with(
    isa: Isa,
    name: &str,
    input: DisasmInput,
    read: ReadOptions,
    emit: Form,
    out: &mut dyn Write,
) -> Result<(usize, usize), FileError> {
    stream_to(isa, name, input, out, |input, out| {
        stream::transcode(isa, input, read, emit, out)
    })
}

/// Opens the file at `path` for an identity translation (`from == to`) that streams
/// ([`transcode_to_with`]) where that writes what the whole-program path
/// ([`translate_input`]) writes, and the whole path adds nothing to it: `None` sends the input
/// down the whole path. The whole path is needed for a bindings or register-map file (read
/// and checked even when nothing is moved) and for the notes only it gives: DX binary output
/// from a listing (the profile it assumes when the listing names none), vISA binary output
/// from text (the lines it leaves out), vISA text read IGC's way (a strict parse of the whole
/// file finds what IGC relaxes). NVIDIA inputs of any form stream; DX and vISA listings to
/// text, and binaries to any form, stream. A binary is told from text as the codec tells it,
/// on the whole file (DX: the container magic, or a version and a length token matching the
/// file's length) or on its first 64 KiB ([`DisasmInput::open`]: a zero byte, which a vISA
/// instruction stream has and vISA text cannot).
pub fn open_identity(path: &Path, options: &translate::Options) -> io::Result<Option<DisasmInput>> {
    if options.from != options.to || options.bindings.is_some() || options.regmap.is_some() {
        return Ok(None);
    }
    let isa = options.from;
    let text_streams = options.emit == Form::Text
        && match isa {
            Isa::Nvidia | Isa::Dxbc => true,
            Isa::Visa => !options.read.igc_compatible,
        };
    if isa == Isa::Nvidia || text_streams {
        // Listings and `.visaasm` dumps stream line by line from the file; NVIDIA tells its
        // binaries from its listings by their bytes as it reads.
        return Ok(Some(DisasmInput::Streamed {
            path: path.to_path_buf(),
            file: io::BufReader::new(fs::File::open(path)?),
        }));
    }
    let binary = match DisasmInput::open(path)? {
        DisasmInput::Whole(bytes) => {
            let binary = isa::codec(isa).looks_binary(&bytes) && !visa::is_isa_container(&bytes);
            binary.then_some(DisasmInput::Whole(bytes))
        }
        // A zero byte in the first 64 KiB, and no `.isa` container: vISA binary; DX decides
        // on the whole file (it is read whole to be checked anyway).
        streamed @ DisasmInput::Streamed { .. } if isa == Isa::Visa => Some(streamed),
        DisasmInput::Streamed { path, .. } => {
            let bytes = fs::read(path)?;
            isa::codec(isa)
                .looks_binary(&bytes)
                .then_some(DisasmInput::Whole(bytes))
        }
    };
    Ok(binary)
}

/// Runs a stream over `input` into `out`, telling the output's I/O errors from the input's
/// and quoting the input in a rejection's diagnostic.
fn stream_to(
    isa: Isa,
    name: &str,
    input: DisasmInput,
    out: &mut dyn Write,
    run: impl FnOnce(&mut dyn stream::Input, &mut dyn Write) -> Result<stream::Stats, StreamError>,
) -> Result<(usize, usize), FileError> {
    let mut out = Tracked {
        inner: out,
        failed: false,
    };
    let (result, path, bytes) = match input {
        DisasmInput::Whole(bytes) => {
            let result = run(&mut io::Cursor::new(&bytes[..]), &mut out);
            (result, None, bytes)
        }
        DisasmInput::Streamed { path, mut file } => {
            let result = run(&mut file, &mut out);
            (result, Some(path), Vec::new())
        }
    };
    match result {
        Ok(stats) => Ok((stats.items as usize, stats.texture as usize)),
        Err(StreamError::Io(e)) if out.failed => Err(FileError::Write(e)),
        Err(StreamError::Io(e)) => Err(FileError::Read(e)),
        Err(StreamError::Codec(e)) => {
            // A streamed file is read whole again to quote it in the diagnostic.
            let bytes = match path {
                Some(path) => fs::read(path).map_err(FileError::Read)?,
                None => bytes,
            };
            Err(FileError::Rejected(Box::new(diagnose(
                isa, name, &bytes, None, &e,
            ))))
        }
    }
}

/// What `disasm` does with a whole input before decoding it instruction by instruction: an
/// IGC `.isa` container is printed whole (`Some`), a text file is refused (`disasm` reads
/// binaries), anything else is left to the decoder (`None`).
pub fn disasm_special(
    isa: Isa,
    name: &str,
    bytes: &[u8],
) -> Result<Option<Output>, Box<Diagnostic>> {
    let codec = isa::codec(isa);
    if isa == Isa::Visa && visa::is_isa_container(bytes) {
        let c = visa::decode_isa_container(bytes)
            .map_err(|e| Box::new(diagnose(isa, name, bytes, None, &e)))?;
        return Ok(Some(Output {
            bytes: visa::print_isa_container(&c).into_bytes(),
            instructions: c.kernels.iter().map(|k| k.instructions).sum(),
            texture_instructions: c.kernels.iter().map(|k| k.samplers.len()).sum(),
        }));
    }
    if !codec.looks_binary(bytes) && looks_like_text(bytes) {
        return Err(Box::new(
            Diagnostic::new(
                Kind::Input,
                format!("this file is text, not {} binary", isa.name()),
            )
            .in_file(name)
            .with_help(format!(
                "`disasm` reads binaries; to assemble text use `texlate asm --isa {0}`, to read or convert it use `texlate translate --from {0} --to ...`",
                isa.name()
            )),
        ));
    }
    Ok(None)
}

/// Whether `bytes` read as text: UTF-8 without control characters other than whitespace.
pub fn looks_like_text(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && std::str::from_utf8(bytes)
            .is_ok_and(|s| s.chars().all(|c| !c.is_control() || c.is_whitespace()))
}

/// Writes `bytes` to `path` whole: to a new temporary file beside it, renamed into place, so
/// a failure never leaves a half-written output (the temporary file is removed) and an
/// existing output is replaced only by a complete one. An output that already holds exactly
/// `bytes` is left in place with its modification time set to now, as a rewrite would set
/// it (build tools see it made): no temporary file and no rename, which on ext4 starts the
/// new file's writeback at once (`auto_da_alloc`).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if touch_if_holds(path, bytes) {
        return Ok(());
    }
    atomic(path, |file| file.write_all(bytes), |e| e)
}

/// Whether `path` is a regular file holding exactly `bytes` whose modification time could be
/// set to now (it then is). Anything else — no such file, other bytes, no permission — is
/// `false`, and the output is written.
fn touch_if_holds(path: &Path, bytes: &[u8]) -> bool {
    let same_size = fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64);
    if !same_size {
        return false;
    }
    let Ok(mut file) = fs::OpenOptions::new().read(true).write(true).open(path) else {
        return false;
    };
    let mut held = Vec::with_capacity(bytes.len());
    let read = (&mut file)
        .take(bytes.len() as u64 + 1)
        .read_to_end(&mut held);
    read.is_ok() && held == bytes && file.set_modified(std::time::SystemTime::now()).is_ok()
}

/// [`write_atomic_with`] for the output of an input read `whole`: made in memory, then
/// written by [`write_atomic`] (an output that already holds it is left in place); a
/// streamed input's output is streamed to the file.
fn write_output_of<T>(
    path: &Path,
    whole: bool,
    write: impl FnOnce(&mut dyn Write) -> Result<T, FileError>,
) -> Result<T, FileError> {
    if !whole {
        return write_atomic_with(path, write);
    }
    let mut bytes = Vec::new();
    let t = write(&mut bytes)?;
    write_atomic(path, &bytes).map_err(FileError::Write)?;
    Ok(t)
}

/// [`write_atomic`] of what `write` writes (through a buffer): the output is renamed into
/// place only when `write` succeeds. Creating, flushing or renaming the file fails as
/// [`FileError::Write`].
pub fn write_atomic_with<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, FileError>,
) -> Result<T, FileError> {
    atomic(
        path,
        |file| {
            let mut w = io::BufWriter::new(file);
            let t = write(&mut w)?;
            w.flush().map_err(FileError::Write)?;
            Ok(t)
        },
        FileError::Write,
    )
}

/// The temporary file of [`write_atomic`]: `write` fills it, then it is renamed to `path`.
/// An existing output that is not a regular file (`/dev/null`, a FIFO, a terminal) is written
/// in place: renaming over it would replace the device node with a file.
fn atomic<T, E>(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> Result<T, E>,
    io_error: impl Fn(io::Error) -> E,
) -> Result<T, E> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    static PID: OnceLock<u32> = OnceLock::new();
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(&io_error)?;
        return write(&mut file);
    }
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the output path names no file",
        ))
    })?;
    let (tmp, mut file) = loop {
        let mut tmp_name = OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(
            ".{}-{}.texlate-tmp",
            PID.get_or_init(std::process::id),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = dir.join(tmp_name);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(file) => break (tmp, file),
            // A stale file of an earlier process with this id: take the next name.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_error(e)),
        }
    };
    let written = write(&mut file).and_then(|t| {
        drop(file);
        fs::rename(&tmp, path).map_err(&io_error)?;
        Ok(t)
    });
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

// ---------------------------------------------------------------------------------------
// Planning

/// What a batch does to each input.
#[derive(Clone, Debug)]
pub enum Job {
    /// `translate`: each input translated with these options.
    Translate(Box<translate::Options>),
    /// `disasm`: each binary of this ISA printed as text, read as the options say (NVIDIA:
    /// for their SM).
    Disasm(Isa, ReadOptions),
}

impl Job {
    /// The ISA of the inputs.
    pub fn input_isa(&self) -> Isa {
        match self {
            Job::Translate(o) => o.from,
            Job::Disasm(isa, _) => *isa,
        }
    }

    /// The extensions taken from a directory (`mappings/files.toml`).
    pub fn input_extensions(&self) -> &'static [String] {
        let names = files::names(self.input_isa());
        match self {
            Job::Translate(_) => &names.translate_inputs,
            Job::Disasm(..) => &names.disasm_inputs,
        }
    }

    /// The extension of an output whose bytes are `output`.
    pub fn output_extension(&self, output: &[u8]) -> &'static str {
        match self {
            Job::Translate(o) => files::names(o.to).output_extension(o.emit, output),
            Job::Disasm(isa, _) => files::names(*isa).output_extension(Form::Text, output),
        }
    }

    /// Every extension an output may take.
    fn output_extensions(&self) -> Vec<&'static str> {
        match self {
            Job::Translate(o) if o.emit == Form::Binary => {
                files::names(o.to).binary_extensions().collect()
            }
            Job::Translate(o) => vec![files::names(o.to).text.as_str()],
            Job::Disasm(isa, _) => vec![files::names(*isa).text.as_str()],
        }
    }

    /// Runs the job on the input `entry` names, writing its output whole (see
    /// [`write_atomic`]) to `target` (set once its name is known) under `out_dir`: the items
    /// and texture instructions read. Warnings and notes go to `notes`.
    fn process(
        &self,
        entry: &Entry,
        out_dir: &Path,
        notes: &mut Vec<Note>,
        target: &mut Option<PathBuf>,
    ) -> Result<(usize, usize), FileError> {
        let name = entry.input.display().to_string();
        let mut output = |ext: &str| -> Result<PathBuf, FileError> {
            let mut path = entry.output_stem.clone().into_os_string();
            path.push(".");
            path.push(ext);
            let path = PathBuf::from(path);
            *target = Some(path.clone());
            // The batch's output directory exists (`run` made it); a subdirectory mirroring
            // the input tree is made on demand.
            if let Some(dir) = path.parent().filter(|d| *d != out_dir) {
                fs::create_dir_all(dir).map_err(FileError::Write)?;
            }
            Ok(path)
        };
        match self {
            Job::Translate(options) => {
                if let Some(mut input) =
                    open_identity(&entry.input, options).map_err(FileError::Read)?
                {
                    // An identity translation from a binary writes the container it read.
                    let path = output(self.output_extension(input.head()?))?;
                    let whole = matches!(input, DisasmInput::Whole(_));
                    return write_output_of(&path, whole, |w| {
                        transcode_to_with(options.from, &name, input, options.read, options.emit, w)
                    });
                }
                let bytes = fs::read(&entry.input).map_err(FileError::Read)?;
                let (out, ..) = translate_input(&name, &bytes, options, false, notes)?;
                let path = output(self.output_extension(&out.bytes))?;
                write_atomic(&path, &out.bytes).map_err(FileError::Write)?;
                Ok((out.instructions, out.texture_instructions))
            }
            Job::Disasm(isa, read) => {
                let input = DisasmInput::open(&entry.input).map_err(FileError::Read)?;
                let path = output(self.output_extension(&[]))?;
                let whole = matches!(input, DisasmInput::Whole(_));
                write_output_of(&path, whole, |w| {
                    disasm_to_with(*isa, &name, input, *read, w)
                })
            }
        }
    }
}

/// Why a batch cannot start (nothing is read or written then).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// Standard input among the inputs: its output would have no name.
    #[error(
        "standard input (`-`) cannot be part of a batch: each output is named after its input file"
    )]
    Stdin,
    /// The output path exists and is no directory.
    #[error(
        "the output {0} is not a directory: a batch writes one file per input into a directory"
    )]
    OutputNotDirectory(PathBuf),
    /// The output directory cannot be created.
    #[error("creating the output directory {path}: {source}")]
    CreateOutput {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The directories hold no file the job takes.
    #[error("no input files: no {extensions} file in {dirs}")]
    NoInputs {
        /// The directories, as given.
        dirs: String,
        /// The extensions taken, `*.sass, *.bin` style.
        extensions: String,
    },
}

impl BatchError {
    /// The kind of failure: [`Kind::Input`] for what the command line asked, [`Kind::Io`]
    /// for the output directory.
    pub fn kind(&self) -> Kind {
        match self {
            BatchError::Stdin | BatchError::NoInputs { .. } => Kind::Input,
            BatchError::OutputNotDirectory(_) | BatchError::CreateOutput { .. } => Kind::Io,
        }
    }

    /// The error as a diagnostic, with what would make it work.
    pub fn diagnostic(&self) -> Diagnostic {
        let d = Diagnostic::new(self.kind(), self.to_string());
        match self {
            BatchError::Stdin => d.with_help(
                "name the files or directories; to read standard input, give `-` alone (its output goes to standard output or -o FILE)",
            ),
            BatchError::OutputNotDirectory(_) => {
                d.with_help("give -o a directory (it is created when missing)")
            }
            BatchError::NoInputs { .. } => d.with_help(
                "name the files themselves to take them whatever their extension",
            ),
            BatchError::CreateOutput { .. } => d,
        }
    }
}

/// One input of a batch and where its output goes.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The input file, as named or found.
    pub input: PathBuf,
    /// The output's path without extension: the output directory, the input's subdirectory
    /// below the directory it was found in, its stem.
    pub output_stem: PathBuf,
    /// Why it will not be processed (a name it would share, a directory that cannot be
    /// read), found while planning.
    pub refused: Option<Diagnostic>,
}

/// A planned batch: the job, the output directory, the inputs in order.
#[derive(Clone, Debug)]
pub struct Plan {
    /// What to do to each input.
    pub job: Job,
    /// Where the outputs go (created by [`run`] when missing).
    pub out_dir: PathBuf,
    /// The inputs, in command-line order, each directory's files sorted by path.
    pub entries: Vec<Entry>,
}

fn io_diagnostic(doing: &str, path: &Path, e: &io::Error) -> Diagnostic {
    Diagnostic::new(Kind::Io, format!("{doing} {}: {e}", path.display()))
        .in_file(path.display().to_string())
}

fn has_extension(path: &Path, extensions: &[String]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
}

/// Walks `dir` (below `root`) depth first in path order: the files with one of `extensions`,
/// symbolic links to files included; links to directories are not followed (no cycles).
fn walk(dir: &Path, root: &Path, extensions: &[String], out_dir: &Path, entries: &mut Vec<Entry>) {
    let listing = fs::read_dir(dir).and_then(|d| {
        let mut paths = d
            .map(|e| e.map(|e| e.path()))
            .collect::<io::Result<Vec<_>>>()?;
        paths.sort();
        Ok(paths)
    });
    let paths = match listing {
        Ok(paths) => paths,
        Err(e) => {
            entries.push(Entry {
                input: dir.to_path_buf(),
                output_stem: out_dir.to_path_buf(),
                refused: Some(io_diagnostic("reading the directory", dir, &e)),
            });
            return;
        }
    };
    for path in paths {
        let Ok(link) = fs::symlink_metadata(&path) else {
            continue;
        };
        if link.is_dir() {
            walk(&path, root, extensions, out_dir, entries);
        } else if has_extension(&path, extensions)
            && (link.is_file() || link.is_symlink() && path.is_file())
        {
            let rel = path
                .parent()
                .and_then(|p| p.strip_prefix(root).ok())
                .unwrap_or(Path::new(""));
            let stem = out_dir.join(rel).join(path.file_stem().unwrap_or_default());
            entries.push(Entry {
                input: path,
                output_stem: stem,
                refused: None,
            });
        }
    }
}

/// Plans a batch of `job` over `inputs` (files and directories) into `out_dir`. Fails only
/// for the batch as a whole; a file that cannot be processed is an [`Entry`] with its
/// reason.
pub fn plan(job: Job, inputs: &[PathBuf], out_dir: &Path) -> Result<Plan, BatchError> {
    if inputs.iter().any(|p| p.as_os_str() == "-") {
        return Err(BatchError::Stdin);
    }
    if out_dir.exists() && !out_dir.is_dir() {
        return Err(BatchError::OutputNotDirectory(out_dir.to_path_buf()));
    }
    let extensions = job.input_extensions();
    let mut entries = Vec::new();
    for input in inputs {
        if input.is_dir() {
            walk(input, input, extensions, out_dir, &mut entries);
        } else {
            let refused = input.file_stem().is_none().then(|| {
                Diagnostic::new(Kind::Input, format!("{} names no file", input.display()))
            });
            entries.push(Entry {
                input: input.clone(),
                output_stem: out_dir.join(input.file_stem().unwrap_or_default()),
                refused,
            });
        }
    }
    if entries.is_empty() {
        let dirs: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        let extensions: Vec<String> = extensions.iter().map(|e| format!("*.{e}")).collect();
        return Err(BatchError::NoInputs {
            dirs: dirs.join(", "),
            extensions: extensions.join(", "),
        });
    }
    // A file named twice (or found in two directories given) is taken once.
    let mut seen = HashSet::new();
    entries.retain(|e| e.refused.is_some() || seen.insert(FileKey::of(&e.input)));
    refuse_shared_outputs(&job, &mut entries, &seen);
    Ok(Plan {
        job,
        out_dir: out_dir.to_path_buf(),
        entries,
    })
}

/// What tells two names of one file apart from names of two files: on Unix the device and
/// inode (symbolic and hard links to one file are one file; one `stat` each), elsewhere the
/// canonical path; a path that cannot be resolved is itself.
#[derive(Debug, Hash, PartialEq, Eq)]
enum FileKey {
    /// Device and inode.
    Node(u64, u64),
    /// The canonical path, or the path as given when it cannot be resolved.
    Path(PathBuf),
}

impl FileKey {
    fn of(p: &Path) -> FileKey {
        FileKey::existing(p).unwrap_or_else(|| FileKey::Path(p.to_path_buf()))
    }

    /// The key of the file at `p`, if there is one (one `stat`).
    #[cfg(unix)]
    fn existing(p: &Path) -> Option<FileKey> {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(p)
            .ok()
            .map(|m| FileKey::Node(m.dev(), m.ino()))
    }

    #[cfg(not(unix))]
    fn existing(p: &Path) -> Option<FileKey> {
        fs::canonicalize(p).ok().map(FileKey::Path)
    }
}

/// Refuses every input whose output would share a path with another's (the same stem:
/// outputs of one batch differ only in a container's extension), or overwrite an input
/// of the batch (`inputs`).
fn refuse_shared_outputs(job: &Job, entries: &mut [Entry], inputs: &HashSet<FileKey>) {
    let mut by_stem: HashMap<&Path, Vec<usize>> = HashMap::new();
    for (i, e) in entries.iter().enumerate() {
        if e.refused.is_none() {
            by_stem.entry(&e.output_stem).or_default().push(i);
        }
    }
    let mut refusals = Vec::new();
    for group in by_stem.values().filter(|g| g.len() > 1) {
        for &i in group {
            let others: Vec<String> = group
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| entries[j].input.display().to_string())
                .collect();
            let d = Diagnostic::new(
                Kind::Input,
                format!(
                    "{} and {} would both write {}.*: neither is written",
                    entries[i].input.display(),
                    others.join(", "),
                    entries[i].output_stem.display()
                ),
            )
            .in_file(entries[i].input.display().to_string())
            .with_help(
                "outputs are named <stem>.<extension>: rename one, or run them in separate batches",
            );
            refusals.push((i, d));
        }
    }
    let extensions = job.output_extensions();
    for (i, e) in entries.iter().enumerate() {
        if e.refused.is_some() {
            continue;
        }
        for ext in &extensions {
            let mut out = e.output_stem.clone().into_os_string();
            out.push(".");
            out.push(ext);
            let out = PathBuf::from(out);
            if FileKey::existing(&out).is_some_and(|k| inputs.contains(&k)) {
                let d = Diagnostic::new(
                    Kind::Input,
                    format!(
                        "the output of {} would overwrite {}, an input of this batch",
                        e.input.display(),
                        out.display()
                    ),
                )
                .in_file(e.input.display().to_string())
                .with_help("write the outputs to another directory (-o)");
                refusals.push((i, d));
                break;
            }
        }
    }
    for (i, d) in refusals {
        entries[i].refused.get_or_insert(d);
    }
}

// ---------------------------------------------------------------------------------------
// Running

fn display_path<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&path.display())
}

fn display_opt_path<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(p) => display_path(p, s),
        None => s.serialize_none(),
    }
}

/// What became of one input.
#[derive(Clone, Debug, Serialize)]
pub struct FileResult {
    /// The input file.
    #[serde(serialize_with = "display_path")]
    pub input: PathBuf,
    /// The output written, or `None` when the input failed.
    #[serde(serialize_with = "display_opt_path")]
    pub output: Option<PathBuf>,
    /// Items read (see [`Output::instructions`]); 0 when the input failed.
    pub instructions: usize,
    /// Texture instructions read; 0 when the input failed.
    pub texture_instructions: usize,
    /// Warnings and notes.
    pub notes: Vec<Note>,
    /// Why the input failed.
    pub error: Option<Diagnostic>,
}

/// What a batch did.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Inputs (files, and directories that could not be read).
    pub files: usize,
    /// Outputs written.
    pub written: usize,
    /// Inputs that failed, each with one diagnostic.
    pub errors: usize,
    /// Warnings and notes.
    pub warnings: usize,
    /// Items read from the inputs written (see [`Output::instructions`]).
    pub instructions: usize,
    /// Texture instructions among them.
    pub texture_instructions: usize,
    /// Wall-clock seconds from the first input read to the last output written.
    pub seconds: f64,
    /// Threads the batch ran on.
    pub threads: usize,
    /// Every input, in plan order.
    pub results: Vec<FileResult>,
}

impl Summary {
    /// The worst failure: [`Kind::Io`] when an input could not be read or written, else the
    /// kind of the first failure; `None` when every output was written.
    pub fn failure(&self) -> Option<Kind> {
        let mut kinds = self
            .results
            .iter()
            .filter_map(|r| r.error.as_ref())
            .map(|d| d.kind);
        let first = kinds.next()?;
        Some(if first == Kind::Io || kinds.any(|k| k == Kind::Io) {
            Kind::Io
        } else {
            first
        })
    }

    /// The summary as JSON: the counts of [`Summary`] and `results`, one object per input
    /// (`input`, `output`, `instructions`, `texture_instructions`, `notes`, `error` — a
    /// diagnostic as [`Diagnostic::to_json`] prints it, or null).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a summary serializes")
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "{}: {} written, {}; {} ({} texture) in {:.2} s on {}",
            plural(self.files, "file", "files"),
            self.written,
            plural(self.errors, "error", "errors"),
            plural(self.instructions, "instruction", "instructions"),
            self.texture_instructions,
            self.seconds,
            plural(self.threads, "thread", "threads"),
        )?;
        if self.warnings > 0 {
            write!(f, ", {}", plural(self.warnings, "warning", "warnings"))?;
        }
        Ok(())
    }
}

fn process(job: &Job, entry: &Entry, out_dir: &Path) -> FileResult {
    let mut result = FileResult {
        input: entry.input.clone(),
        output: None,
        instructions: 0,
        texture_instructions: 0,
        notes: Vec::new(),
        error: entry.refused.clone(),
    };
    if result.error.is_some() {
        return result;
    }
    let mut target = None;
    match job.process(entry, out_dir, &mut result.notes, &mut target) {
        Ok((instructions, texture_instructions)) => {
            result.output = target;
            result.instructions = instructions;
            result.texture_instructions = texture_instructions;
        }
        Err(e) => {
            let output = target.map_or(String::new(), |p| p.display().to_string());
            result.error = Some(e.diagnostic(&entry.input.display().to_string(), &output));
        }
    }
    result
}

/// Runs a planned batch on the current rayon pool: creates the output directory, processes
/// every entry in parallel and calls `on_done` with each result as soon as it is done (from
/// the worker threads). Fails only when the output directory cannot be created.
pub fn run(plan: &Plan, on_done: &(dyn Fn(&FileResult) + Sync)) -> Result<Summary, BatchError> {
    fs::create_dir_all(&plan.out_dir).map_err(|source| BatchError::CreateOutput {
        path: plan.out_dir.clone(),
        source,
    })?;
    let start = Instant::now();
    let results: Vec<FileResult> = plan
        .entries
        .par_iter()
        .map(|entry| {
            let r = process(&plan.job, entry, &plan.out_dir);
            on_done(&r);
            r
        })
        .collect();
    let seconds = start.elapsed().as_secs_f64();
    let written: Vec<&FileResult> = results.iter().filter(|r| r.output.is_some()).collect();
    Ok(Summary {
        files: results.len(),
        written: written.len(),
        errors: results.iter().filter(|r| r.error.is_some()).count(),
        warnings: results.iter().map(|r| r.notes.len()).sum(),
        instructions: written.iter().map(|r| r.instructions).sum(),
        texture_instructions: written.iter().map(|r| r.texture_instructions).sum(),
        seconds,
        threads: rayon::current_num_threads(),
        results,
    })
}

/// The file names of batch mode as a Markdown table (README; `mappings/files.toml`): per ISA,
/// what a directory gives `translate` and `disasm`, and the outputs' extensions.
pub fn file_names_markdown() -> String {
    let list = |exts: &[String]| {
        exts.iter()
            .map(|e| format!("`*.{e}`"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = String::from(
        "| ISA | `translate --from` takes | `disasm --isa` takes | text output | binary output |\n\
         |---|---|---|---|---|\n",
    );
    for isa in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
        let n = files::names(isa);
        let binary: Vec<String> = n.binary_extensions().map(|e| format!("`.{e}`")).collect();
        out.push_str(&format!(
            "| {} | {} | {} | `.{}` | {} |\n",
            isa.name(),
            list(&n.translate_inputs),
            list(&n.disasm_inputs),
            n.text,
            binary.join(" or ")
        ));
    }
    out
}

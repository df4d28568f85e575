//! The `texlate` command line.

use std::fs;
use std::io::{self, IsTerminal, Read, Write};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use texlate::diagnostic::{Diagnostic, Input, Kind};
use texlate::{batch, ir, isa, translate, Error, Form, Isa, ReadOptions};

/// The command line allocates with mimalloc (the library leaves the choice to its user): a
/// cross-ISA translation spent ~25 % of its time in glibc's `malloc`/`free`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The exit codes, as `--help` and README state them.
const EXIT_CODES: &str = "\
Exit status:
  0  success
  1  the input was rejected (parse, decode, validation, unsupported, bindings/regmap file,
     or a semantic-check disagreement); the message gives file, line and column
  2  usage error (unknown option, missing argument)
  3  I/O error (a file cannot be read or written)

In a batch (several inputs, a directory, or -o naming a directory) every file is attempted
and the others are written whatever fails: 0 when every output was written, otherwise 1 or
3 by the causes above (3 when any file could not be read or written); a closing summary (on
standard error, `--json`: on standard output) counts files, instructions, errors and time.
Before any file is read: 2 for standard input in a batch or a batch without -o, 3 for -o
naming a file, 1 for directories holding no input file.";

#[derive(Parser)]
#[command(
    name = "texlate",
    version,
    about = "Translate GPU texture instructions between Intel vISA, DXBC and NVIDIA SASS",
    after_help = EXIT_CODES
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print errors as JSON (one object per line on standard error); `translate` and
    /// `explain` also print the Report as JSON, a batch its summary (on standard output).
    #[arg(long, global = true)]
    json: bool,
    /// When to colour diagnostics.
    #[arg(
        long,
        value_enum,
        global = true,
        default_value = "auto",
        value_name = "WHEN"
    )]
    color: ColorArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorArg {
    /// On a terminal, unless NO_COLOR is set.
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum IsaArg {
    /// Intel vISA (IGC `.visaasm` text, vISA instruction bytes).
    Visa,
    /// DirectX SM4/SM5 (fxc listings, token streams, DXBC containers).
    Dxbc,
    /// NVIDIA Maxwell/Pascal SM50–SM62 (nvdisasm listings, word streams, cubins; see --sm).
    Nvidia,
}

impl From<IsaArg> for Isa {
    fn from(a: IsaArg) -> Isa {
        match a {
            IsaArg::Visa => Isa::Visa,
            IsaArg::Dxbc => Isa::Dxbc,
            IsaArg::Nvidia => Isa::Nvidia,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Emit {
    /// A listing or kernel as the vendor tool prints it.
    Text,
    /// The binary encoding (DX: a whole DXBC container).
    Binary,
    /// DX only: the bare SM4/SM5 token stream, without the DXBC container.
    Tokens,
}

/// The binary forms `asm` writes.
#[derive(Clone, Copy, ValueEnum)]
enum AsmEmit {
    /// The binary encoding (DX: a whole DXBC container).
    Binary,
    /// DX only: the bare SM4/SM5 token stream, without the DXBC container.
    Tokens,
}

/// Options that change how inputs are read.
#[derive(clap::Args, Clone, Copy)]
struct ReadArgs {
    /// Refuse what IGC 1.0.12504 itself prints although it breaks a vISA rule (sample4
    /// parameters mixing F and HF). By default it is read, with a warning.
    #[arg(long)]
    strict: bool,
    /// Accepted for compatibility: reading what IGC prints is the default.
    #[arg(long, hide = true)]
    igc_compat: bool,
    #[command(flatten)]
    sm: SmArg,
}

/// The NVIDIA architecture option.
#[derive(clap::Args, Clone, Copy)]
struct SmArg {
    /// NVIDIA architecture, by nvdisasm's name: SM50, SM52, SM53, SM60, SM61 or SM62. Decides
    /// which forms and fields NVIDIA words decode to and instructions may encode as (SM52+:
    /// the sparse predicate, .LC, TEXS/TLDS/TLD4S .F16; SM60+: .RTZ), for inputs that do not
    /// name their SM: a cubin is read for the SM of its ELF flags and a listing for the SM of
    /// its `.headerflags` line, as nvdisasm reads a cubin. Other ISAs ignore it.
    #[arg(long, value_name = "SM", default_value = "SM50")]
    sm: isa::nvidia::Sm,
}

impl From<ReadArgs> for ReadOptions {
    fn from(a: ReadArgs) -> Self {
        ReadOptions {
            igc_compatible: !a.strict,
            sm: a.sm.sm,
        }
    }
}

/// Warns about what a vISA text breaks although IGC 1.0.12504 writes it (read by default,
/// refused by `--strict`).
fn warn_igc_relaxations(isa: Isa, bytes: &[u8], options: ReadOptions) {
    if let Some(w) = batch::igc_relaxation_warning(isa, bytes, options) {
        print_note(&batch::Note {
            level: batch::NoteLevel::Warning,
            message: w,
        });
    }
}

/// Prints a warning or note of a single input.
fn print_note(note: &batch::Note) {
    let _ = writeln!(io::stderr(), "texlate: {note}");
}

/// Options of a batch.
#[derive(clap::Args, Clone, Copy)]
struct BatchArgs {
    /// Threads of a batch (default: RAYON_NUM_THREADS when set, else one per core).
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<NonZeroUsize>,
}

/// The batch-mode part of `translate --help` and `disasm --help`, with the file-name table
/// of mappings/files.toml.
fn batch_help() -> String {
    let mut table = String::new();
    for isa in [Isa::Visa, Isa::Dxbc, Isa::Nvidia] {
        let n = texlate::mappings::files::names(isa);
        let list = |exts: &[String]| -> String { exts.iter().map(|e| format!(" *.{e}")).collect() };
        let binary: Vec<String> = n.binary_extensions().map(|e| format!(".{e}")).collect();
        table.push_str(&format!(
            "  {:<7} translate takes{}; disasm takes{}\n          outputs: text .{}, binary {}\n",
            isa.name(),
            list(&n.translate_inputs),
            list(&n.disasm_inputs),
            n.text,
            binary.join(" or ")
        ));
    }
    format!(
        "\
Batch mode: several inputs, a directory, or -o naming an existing directory make a batch.
Every input is processed, in parallel (-j, RAYON_NUM_THREADS), and written whole to
OUTDIR/<input stem>.<extension>; a file found below a directory keeps its subdirectory
(DIR/sub/x.sass -> OUTDIR/sub/x.asm). A directory gives the files with its ISA's extensions
(ASCII case-insensitive; links to directories are not followed); files named on the command
line are taken whatever their name. A binary output that is a container (a DXBC container,
a cubin) takes the container's extension.

{table}
Inputs that would share an output (the same subdirectory and stem, e.g. a/x.sass and
b/x.sass) are each reported and neither is written; so is an input whose output would
overwrite an input of the batch. A failing input is reported with its file and location and
never stops the batch. A progress bar shows when standard error is a terminal; a closing
summary counts files, outputs, errors, instructions and time (`--json`: one JSON object on
standard output, with every input's result).

{EXIT_CODES}"
    )
}

/// Whether a command's inputs and output make a batch.
fn is_batch(inputs: &[PathBuf], output: Option<&Path>) -> bool {
    inputs.len() > 1 || inputs.iter().any(|p| p.is_dir()) || output.is_some_and(Path::is_dir)
}

/// Runs a batch: plans it, runs it on `args.jobs` threads with a progress bar on a terminal,
/// prints each failure as it comes and the summary at the end.
fn run_batch(
    job: batch::Job,
    inputs: &[PathBuf],
    output: Option<&Path>,
    args: BatchArgs,
    json: bool,
    color: bool,
) -> Result<(), Failure> {
    let fail = |e: batch::BatchError| match e {
        batch::BatchError::Stdin => {
            let d = e.diagnostic();
            Failure::Usage(format!(
                "{}\n\n  help: {}",
                d.message,
                d.help.unwrap_or_default()
            ))
        }
        _ => Failure::diag(e.diagnostic()),
    };
    let Some(out_dir) = output else {
        if inputs.iter().any(|p| p.as_os_str() == "-") {
            return Err(fail(batch::BatchError::Stdin));
        }
        return Err(Failure::Usage(
            "a batch (several inputs or a directory) writes one file per input: give the output \
             directory with -o OUTDIR"
                .into(),
        ));
    };
    let plan = batch::plan(job, inputs, out_dir).map_err(fail)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map_or(0, NonZeroUsize::get))
        .build()
        .map_err(|e| Failure::Refused(format!("cannot start the batch's threads: {e}")))?;
    let bar = if !json && io::stderr().is_terminal() {
        let bar = ProgressBar::new(plan.entries.len() as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed:>4} [{wide_bar}] {pos}/{len} files {msg}")
                .expect("the template is valid")
                .progress_chars("=> "),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let errors = std::sync::atomic::AtomicUsize::new(0);
    let on_done = |r: &batch::FileResult| {
        let mut text = String::new();
        if let Some(d) = &r.error {
            let n = errors.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            bar.set_message(format!("({n} failed)"));
            text = if json {
                format!("{}\n", d.to_json())
            } else {
                d.render(color)
            };
        }
        if !json {
            for note in &r.notes {
                text.push_str(&format!("texlate: {}: {note}\n", r.input.display()));
            }
        }
        if !text.is_empty() {
            bar.suspend(|| {
                let _ = io::stderr().write_all(text.as_bytes());
            });
        }
        bar.inc(1);
    };
    let summary = pool.install(|| batch::run(&plan, &on_done)).map_err(fail)?;
    bar.finish_and_clear();
    if json {
        write_output(None, format!("{}\n", summary.to_json()).as_bytes())?;
    } else {
        let _ = writeln!(io::stderr(), "texlate: {summary}");
    }
    match summary.failure() {
        None => Ok(()),
        Some(kind) => Err(Failure::Reported(kind)),
    }
}

/// The exit code of a failure of `kind` (see EXIT_CODES).
fn exit_code(kind: Kind) -> u8 {
    if kind == Kind::Io {
        3
    } else {
        1
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum StageArg {
    /// `ps_5_0`.
    Pixel,
    /// `cs_5_0`.
    Compute,
    /// `vs_5_0`.
    Vertex,
}

#[derive(Clone, Copy, ValueEnum)]
enum GradArg {
    /// A native form or the exact emulation the target's compiler emits; otherwise refuse.
    Exact,
    /// Where no exact form exists, the LOD the gradients give and an explicit-LOD sample.
    Approx,
    /// A native form only; refuse anything that needs an emulation.
    Error,
}

/// Options of a translation (`translate`, `explain --to`, `check`).
#[derive(clap::Args, Clone)]
struct TranslateArgs {
    /// The input's instruction set.
    #[arg(long, value_enum)]
    from: IsaArg,
    /// The output's instruction set.
    #[arg(long, value_enum)]
    to: IsaArg,
    /// Output form: text (a listing or kernel), binary (word stream, DXBC container, vISA
    /// instruction bytes) or tokens (DX's bare token stream).
    #[arg(long, value_enum, default_value = "text")]
    emit: Emit,
    /// Bindings file (TOML, `[[binding]]` rows): which texture and sampler each ISA calls
    /// a resource, with its dimension.
    #[arg(long, value_name = "FILE")]
    bindings: Option<PathBuf>,
    /// Register-map file (TOML, `[[map]]` rows with `source` and `target`).
    #[arg(long, value_name = "FILE")]
    regmap: Option<PathBuf>,
    /// SIMD width of a vISA target.
    #[arg(long, default_value_t = 16, value_parser = parse_simd)]
    simd: u8,
    /// DX shader stage of a DX target (default: pixel when an instruction needs implicit
    /// derivatives, otherwise compute).
    #[arg(long, value_enum)]
    stage: Option<StageArg>,
    /// Refuse inputs with non-texture items instead of keeping them as comments, and vISA
    /// that IGC 1.0.12504 writes although it breaks a vISA rule (sample4 parameters mixing
    /// F and HF; read with a warning by default).
    #[arg(long)]
    strict: bool,
    /// Gradient samples the target has no native form for: `exact` emits the exact
    /// emulation the target's compiler emits (or refuses), `approx` samples at the LOD the
    /// gradients give (with a warning), `error` refuses anything but a native form.
    #[arg(long, value_enum, default_value = "exact")]
    grad: GradArg,
    /// Accepted for compatibility: reading what IGC prints is the default.
    #[arg(long, hide = true)]
    igc_compat: bool,
    #[command(flatten)]
    sm: SmArg,
}

impl TranslateArgs {
    fn options(&self) -> Result<translate::Options, Failure> {
        let file = |p: &Option<PathBuf>| -> Result<Option<(String, String)>, Failure> {
            match p {
                None => Ok(None),
                Some(path) => {
                    let text =
                        fs::read_to_string(path).map_err(|e| io_error("reading", path, e))?;
                    Ok(Some((path.display().to_string(), text)))
                }
            }
        };
        Ok(translate::Options {
            from: self.from.into(),
            to: self.to.into(),
            emit: match self.emit {
                Emit::Text => Form::Text,
                Emit::Binary => Form::Binary,
                Emit::Tokens => Form::Tokens,
            },
            bindings: file(&self.bindings)?,
            regmap: file(&self.regmap)?,
            simd: self.simd,
            stage: self.stage.map(|s| match s {
                StageArg::Pixel => isa::Stage::Pixel,
                StageArg::Compute => isa::Stage::Compute,
                StageArg::Vertex => isa::Stage::Vertex,
            }),
            strict: self.strict,
            read: ReadOptions {
                igc_compatible: !self.strict,
                sm: self.sm.sm,
            },
            grad: match self.grad {
                GradArg::Exact => translate::GradPolicy::Exact,
                GradArg::Approx => translate::GradPolicy::Approx,
                GradArg::Error => translate::GradPolicy::Error,
            },
        })
    }
}

fn parse_simd(s: &str) -> Result<u8, String> {
    match s {
        "8" => Ok(8),
        "16" => Ok(16),
        _ => Err(format!("`{s}` is not a vISA SIMD width: 8 or 16")),
    }
}

#[derive(Subcommand)]
enum Command {
    /// Translate a listing or binary from one instruction set to another.
    #[command(after_long_help = batch_help())]
    Translate {
        #[command(flatten)]
        args: TranslateArgs,
        /// Input file, `-` for standard input; several files or directories for a batch.
        #[arg(required = true, value_name = "IN")]
        input: Vec<PathBuf>,
        /// Output file, `-` for standard output (the default for text); in a batch, the
        /// output directory (created when missing).
        #[arg(short, long, value_name = "FILE|DIR")]
        output: Option<PathBuf>,
        #[command(flatten)]
        batch: BatchArgs,
    },
    /// Binary to text (for a text input, use `asm` or `translate`).
    #[command(after_long_help = batch_help())]
    Disasm {
        /// The input's instruction set.
        #[arg(long, value_enum)]
        isa: IsaArg,
        /// Instructions as hex instead of a file.
        #[arg(long, num_args = 1.., conflicts_with = "file")]
        hex: Option<Vec<String>>,
        /// Input file, `-` for standard input; several files or directories for a batch.
        #[arg(required_unless_present = "hex", value_name = "IN")]
        file: Vec<PathBuf>,
        /// Output file, `-` for standard output (the default); in a batch, the output
        /// directory (created when missing).
        #[arg(short, long, value_name = "FILE|DIR")]
        output: Option<PathBuf>,
        #[command(flatten)]
        batch: BatchArgs,
        #[command(flatten)]
        sm: SmArg,
    },
    /// Text to binary.
    Asm {
        /// The input's instruction set.
        #[arg(long, value_enum)]
        isa: IsaArg,
        /// Print the encoding as hex, one instruction per line.
        #[arg(long)]
        hex: bool,
        /// Binary form: binary (DX: a whole DXBC container) or tokens (DX: the bare token
        /// stream).
        #[arg(long, value_enum, default_value = "binary", conflicts_with = "hex")]
        emit: AsmEmit,
        /// A file, `-` for standard input, or the instruction text itself.
        input: String,
        /// Output file, `-` for standard output (the default).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Print the IR of each texture instruction (`--isa`), or the Report of a translation
    /// (`--from A --to B`).
    Explain {
        /// The input's instruction set, to print its IR.
        #[arg(long, value_enum, conflicts_with_all = ["from", "to"], required_unless_present = "from")]
        isa: Option<IsaArg>,
        /// The input's instruction set, to explain a translation.
        #[arg(long, value_enum, requires = "to")]
        from: Option<IsaArg>,
        /// The target instruction set.
        #[arg(long, value_enum, requires = "from")]
        to: Option<IsaArg>,
        /// Bindings file for the translation.
        #[arg(long, value_name = "FILE")]
        bindings: Option<PathBuf>,
        /// Register-map file for the translation.
        #[arg(long, value_name = "FILE")]
        regmap: Option<PathBuf>,
        /// SIMD width of a vISA target.
        #[arg(long, default_value_t = 16, value_parser = parse_simd)]
        simd: u8,
        /// Gradient samples the target has no native form for (as `translate --grad`).
        #[arg(long, value_enum, default_value = "exact", requires = "to")]
        grad: GradArg,
        /// With `--isa`: list the opaque (non-texture) items too.
        #[arg(long, conflicts_with_all = ["from", "to"])]
        all: bool,
        /// Input file, or `-` for standard input.
        input: PathBuf,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Translate, then check every instruction with the semantic models: the source and its
    /// translation must ask the sampler the same and leave the same values in the source's
    /// registers (exit 1 on any disagreement).
    Check {
        #[command(flatten)]
        args: TranslateArgs,
        /// Input file, or `-` for standard input.
        input: PathBuf,
        /// Seed of the random register values.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print the instruction table of every ISA, or with `--matrix` the compatibility matrix
    /// of the translations (both rendered from mappings/).
    Ops {
        /// The op × target compatibility matrix (mappings/rules.toml) instead.
        #[arg(long)]
        matrix: bool,
    },
    /// Print a shell completion script, generated from this command line's definition.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), generated from this command line's definition.
    Man,
}

/// A failure of the command, with the exit code it maps to.
enum Failure {
    /// Rejected input, I/O error, or failed check: printed as a diagnostic.
    Diag(Box<Diagnostic>),
    /// A usage error clap cannot see.
    Usage(String),
    /// The semantic check found a disagreement (already printed).
    Disagree,
    /// The input is valid but the command has nothing to do with it (exit 1).
    Refused(String),
    /// Standard output was closed (`texlate ... | head`): end quietly.
    ClosedPipe,
    /// A batch's failures, each already printed: exit by the worst one's kind.
    Reported(Kind),
}

impl Failure {
    fn diag(d: Diagnostic) -> Self {
        Failure::Diag(Box::new(d))
    }
}

fn io_error(doing: &str, path: &Path, e: io::Error) -> Failure {
    Failure::diag(Diagnostic::new(
        Kind::Io,
        format!("{doing} {}: {e}", path.display()),
    ))
}

/// An input as read, to quote in diagnostics.
struct Source {
    name: String,
    bytes: Vec<u8>,
}

impl Source {
    fn read(path: &Path) -> Result<Self, Failure> {
        if path.as_os_str() == "-" {
            let mut bytes = Vec::new();
            io::stdin().read_to_end(&mut bytes).map_err(|e| {
                Failure::diag(Diagnostic::new(
                    Kind::Io,
                    format!("reading standard input: {e}"),
                ))
            })?;
            Ok(Source {
                name: "<stdin>".into(),
                bytes,
            })
        } else {
            let bytes = fs::read(path).map_err(|e| io_error("reading", path, e))?;
            Ok(Source {
                name: path.display().to_string(),
                bytes,
            })
        }
    }

    /// The diagnostic of `e`, raised reading this input as `isa` (with the bindings and
    /// register-map files of `options`).
    fn fail(&self, isa: Isa, options: Option<&translate::Options>, e: Error) -> Failure {
        Failure::diag(batch::diagnose(isa, &self.name, &self.bytes, options, &e))
    }
}

/// Writes the whole output at once, to a temporary file renamed into place, so a failure
/// never leaves a half-written output behind.
fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        None => {
            let mut out = io::stdout().lock();
            out.write_all(bytes)
                .and_then(|()| out.flush())
                .map_err(|e| match e.kind() {
                    io::ErrorKind::BrokenPipe => Failure::ClosedPipe,
                    _ => Failure::diag(Diagnostic::new(
                        Kind::Io,
                        format!("writing standard output: {e}"),
                    )),
                })
        }
        Some(path) => batch::write_atomic(path, bytes).map_err(|e| io_error("writing", path, e)),
    }
}

/// Writes an output through `write`: to standard output, or whole to `path`
/// ([`batch::write_atomic_with`]: a failure leaves no half-written file). `input` names the
/// input in read errors.
fn stream_output<T>(
    path: Option<&Path>,
    input: &str,
    write: impl FnOnce(&mut dyn Write) -> Result<T, batch::FileError>,
) -> Result<(), Failure> {
    let result = match path {
        None => {
            let mut out = io::stdout().lock();
            write(&mut out).and_then(|_| out.flush().map_err(batch::FileError::Write))
        }
        Some(path) => batch::write_atomic_with(path, write).map(|_| ()),
    };
    result.map_err(|e| match e {
        batch::FileError::Write(e) if path.is_none() && e.kind() == io::ErrorKind::BrokenPipe => {
            Failure::ClosedPipe
        }
        e => {
            let output = path.map_or("standard output".into(), |p| p.display().to_string());
            Failure::diag(e.diagnostic(input, &output))
        }
    })
}

/// vISA binary output holds texture instructions only: say so rather than drop the other
/// lines silently.
fn note_unencoded_lines(isa: Isa, form: Form, program: &texlate::Program) {
    if let Some(n) = batch::unencoded_lines_note(isa, form, program) {
        print_note(&batch::Note {
            level: batch::NoteLevel::Note,
            message: n,
        });
    }
}

/// Prints what encoding `program` assumed that it does not say (a DX listing without a
/// profile line is assembled as `ps_5_0`), as warnings.
fn warn_encoding(isa: Isa, program: &texlate::Program, form: Form) {
    for w in isa::codec(isa).encode_warnings(program, form) {
        let _ = writeln!(io::stderr(), "texlate: warning: {w}");
    }
}

/// A vISA `.isa` container is read (its kernels and sampler instructions), and refused for
/// translation with what IGC 12504's writer cut from its first sampler instruction.
fn refuse_container(from: Isa, source: &Source) -> Result<(), Failure> {
    batch::refuse_isa_container(from, &source.name, &source.bytes).map_err(Failure::Diag)
}

/// `-o -` names standard output, as `-` names standard input (a file named `-` is `./-`).
fn standard_output_dash(output: Option<PathBuf>) -> Option<PathBuf> {
    output.filter(|p| p.as_os_str() != "-")
}

fn run(cli: Cli, color: bool) -> Result<(), Failure> {
    let json = cli.json;
    match cli.command {
        Command::Translate {
            args,
            input,
            output,
            batch: batch_args,
        } => {
            let output = standard_output_dash(output);
            let options = args.options()?;
            if is_batch(&input, output.as_deref()) {
                let job = batch::Job::Translate(Box::new(options));
                return run_batch(job, &input, output.as_deref(), batch_args, json, color);
            }
            // An identity translation of a file streams where the whole-program path would
            // add nothing to it (`batch::open_identity`); its Report (`--json`) needs that path.
            let file = &input[0];
            let opened = if json || file.as_os_str() == "-" {
                None
            } else {
                batch::open_identity(file, &options).map_err(|e| io_error("reading", file, e))?
            };
            if let Some(source) = opened {
                let name = file.display().to_string();
                return stream_output(output.as_deref(), &name, |out| {
                    batch::transcode_to_with(
                        options.from,
                        &name,
                        source,
                        options.read,
                        options.emit,
                        out,
                    )
                });
            }
            let source = Source::read(file)?;
            let mut notes = Vec::new();
            let result =
                batch::translate_input(&source.name, &source.bytes, &options, json, &mut notes);
            notes.iter().for_each(print_note);
            let (out, translation, report) = result.map_err(Failure::Diag)?;
            let written = match report {
                Some(report) => write_output(output.as_deref(), report.to_json().as_bytes()),
                None => write_output(output.as_deref(), &out.bytes),
            };
            // The process ends next: the input, output and target program are not freed piece
            // by piece (a fifth of a large translation's time).
            std::mem::forget((source, out, translation));
            written
        }
        Command::Disasm {
            isa: isa_arg,
            hex,
            file,
            output,
            batch: batch_args,
            sm,
        } => {
            let output = standard_output_dash(output);
            let isa = Isa::from(isa_arg);
            let read = ReadOptions {
                sm: sm.sm,
                ..ReadOptions::default()
            };
            if let Some(words) = hex {
                let words: Vec<&str> = words.iter().map(String::as_str).collect();
                return stream_output(output.as_deref(), "--hex", |out| {
                    texlate::stream::disasm_hex_with(isa, &words, read, out).map_err(|e| match e {
                        texlate::stream::StreamError::Codec(e) => batch::FileError::Rejected(
                            Box::new(Diagnostic::from_error(&e, &Input::binary("--hex"), &[])),
                        ),
                        texlate::stream::StreamError::Io(e) => batch::FileError::Write(e),
                    })
                });
            }
            if is_batch(&file, output.as_deref()) {
                let job = batch::Job::Disasm(isa, read);
                return run_batch(job, &file, output.as_deref(), batch_args, json, color);
            }
            let file = &file[0];
            let (name, input) = if file.as_os_str() == "-" {
                let source = Source::read(file)?;
                (source.name, batch::DisasmInput::Whole(source.bytes))
            } else {
                let input =
                    batch::DisasmInput::open(file).map_err(|e| io_error("reading", file, e))?;
                (file.display().to_string(), input)
            };
            stream_output(output.as_deref(), &name, |out| {
                batch::disasm_to_with(isa, &name, input, read, out)
            })
        }
        Command::Asm {
            isa: isa_arg,
            hex,
            emit,
            input,
            output,
            read,
        } => {
            let output = standard_output_dash(output);
            let isa = Isa::from(isa_arg);
            let path = Path::new(&input);
            let (name, text) = if input == "-" || path.is_file() {
                let source = Source::read(path)?;
                let text = String::from_utf8(source.bytes).map_err(|e| {
                    Failure::diag(
                        Diagnostic::new(
                            Kind::Input,
                            format!(
                                "not UTF-8 text (byte {:#x} is not UTF-8)",
                                e.utf8_error().valid_up_to()
                            ),
                        )
                        .in_file(source.name.clone())
                        .with_help(format!(
                            "`asm` reads text; to disassemble a binary use `texlate disasm --isa {}`",
                            isa.name()
                        )),
                    )
                })?;
                (source.name, text)
            } else if !input.contains(char::is_whitespace) {
                // Every instruction has operands after a space: a single word is a path.
                return Err(Failure::diag(Diagnostic::new(
                    Kind::Io,
                    format!("reading {input}: no such file"),
                )));
            } else {
                ("<command line>".to_string(), input.clone())
            };
            warn_igc_relaxations(isa, text.as_bytes(), read.into());
            let fail = |e: Error| {
                Failure::diag(Diagnostic::from_error(&e, &Input::text(&name, &text), &[]))
            };
            let program = texlate::parse_text_with(isa, &text, read.into()).map_err(fail)?;
            let out = if hex {
                isa::codec(isa)
                    .print_hex(&program)
                    .map_err(fail)?
                    .into_bytes()
            } else {
                let form = match emit {
                    AsmEmit::Binary => Form::Binary,
                    AsmEmit::Tokens => Form::Tokens,
                };
                let bytes = texlate::encode(isa, &program, form).map_err(fail)?;
                note_unencoded_lines(isa, Form::Binary, &program);
                warn_encoding(isa, &program, form);
                bytes
            };
            if out.is_empty() {
                // Never exit 0 with nothing to show.
                return Err(Failure::Refused(format!(
                    "nothing to assemble: `asm` encodes the texture instructions of {} text and \
                     the input has none (its other lines are valid but have no encoding here)",
                    isa.name()
                )));
            }
            write_output(output.as_deref(), &out)
        }
        Command::Explain {
            isa: Some(isa),
            input,
            read,
            all,
            ..
        } => {
            let isa = Isa::from(isa);
            let source = Source::read(&input)?;
            if isa == Isa::Visa && isa::visa::is_isa_container(&source.bytes) {
                let c = isa::visa::decode_isa_container(&source.bytes)
                    .map_err(|e| source.fail(isa, None, e))?;
                let mut text = isa::visa::print_isa_container(&c);
                text.push_str(
                    "// no IR: an instruction without its last operands does not lift \
                     (translate the .visaasm text)\n",
                );
                return write_output(None, text.as_bytes());
            }
            warn_igc_relaxations(isa, &source.bytes, read.into());
            let mut program = texlate::decode_with(isa, &source.bytes, read.into())
                .map_err(|e| source.fail(isa, None, e))?;
            // A texture instruction that decodes but cannot run, or that the IR does not model,
            // has no IR to print.
            let codec = isa::codec(isa);
            if let Some(e) = program.items.iter().find_map(|i| match i {
                ir::Item::Opaque(o) => codec.opaque_untranslatable(&program, o),
                _ => None,
            }) {
                return Err(source.fail(isa, None, e));
            }
            if !all {
                program.items.retain(|i| matches!(i, ir::Item::Tex(_)));
            }
            write_output(None, ir::display_program(&program).as_bytes())
        }
        Command::Explain {
            from,
            to,
            bindings,
            regmap,
            simd,
            grad,
            input,
            read,
            ..
        } => {
            let (Some(from), Some(to)) = (from, to) else {
                return Err(Failure::Usage(
                    "explain needs --isa, or --from and --to".into(),
                ));
            };
            let args = TranslateArgs {
                from,
                to,
                emit: Emit::Text,
                bindings,
                regmap,
                simd,
                stage: None,
                strict: read.strict,
                grad,
                igc_compat: false,
                sm: read.sm,
            };
            let options = args.options()?;
            let input_file = Source::read(&input)?;
            refuse_container(options.from, &input_file)?;
            warn_igc_relaxations(options.from, &input_file.bytes, options.read);
            let fail = |e| input_file.fail(options.from, Some(&options), e);
            let source = texlate::decode_with(options.from, &input_file.bytes, options.read)
                .map_err(fail)?;
            let report = if options.from == options.to {
                translate::translate_program(source, &options)
                    .map_err(fail)?
                    .report()
            } else {
                translate::lower_program(source, &options)
                    .map_err(fail)?
                    .report()
            };
            let text = if json {
                report.to_json()
            } else {
                report.to_string()
            };
            write_output(None, text.as_bytes())
        }
        Command::Check { args, input, seed } => {
            let options = args.options()?;
            let source = Source::read(&input)?;
            refuse_container(options.from, &source)?;
            let t = translate::translate(&source.bytes, &options)
                .map_err(|e| source.fail(options.from, Some(&options), e))?;
            let report = translate::check(&source.bytes, &t, &options, seed).map_err(|e| {
                Failure::diag(
                    Diagnostic::new(
                        Kind::Check,
                        format!("the semantic check cannot read the programs: {e}"),
                    )
                    .in_file(source.name.clone()),
                )
            })?;
            write_output(None, report.to_string().as_bytes())?;
            // Under --grad approx an approximated LOD is what was asked for: the check then
            // passes when everything else agrees and the LOD follows the isotropic rule.
            let approx = options.grad == translate::GradPolicy::Approx;
            if report.agrees() || (approx && report.agrees_up_to_lod()) {
                Ok(())
            } else {
                Err(Failure::Disagree)
            }
        }
        Command::Ops { matrix: false } => {
            write_output(None, texlate::op_table_markdown().as_bytes())
        }
        Command::Ops { matrix: true } => {
            write_output(None, texlate::mappings::rules::matrix_markdown().as_bytes())
        }
        Command::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "texlate", &mut out);
            write_output(None, &out)
        }
        Command::Man => {
            let mut out = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut out)
                .expect("rendering to memory cannot fail");
            write_output(None, &out)
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let color = match cli.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stderr().is_terminal()
        }
    };
    let (diagnostic, code) = match run(cli, color) {
        Ok(()) | Err(Failure::ClosedPipe) => return ExitCode::SUCCESS,
        Err(Failure::Diag(d)) => {
            let code = exit_code(d.kind);
            (*d, code)
        }
        Err(Failure::Usage(msg)) => {
            let mut cmd = Cli::command();
            cmd.error(clap::error::ErrorKind::MissingRequiredArgument, msg)
                .exit()
        }
        Err(Failure::Refused(msg)) => (Diagnostic::new(Kind::Input, msg), 1),
        Err(Failure::Reported(kind)) => return ExitCode::from(exit_code(kind)),
        Err(Failure::Disagree) => (
            Diagnostic::new(
                Kind::Check,
                "the translation and its source disagree (see above)",
            ),
            1,
        ),
    };
    let text = if json {
        format!("{}\n", diagnostic.to_json())
    } else {
        diagnostic.render(color)
    };
    // Standard error may be closed too: nothing more to say then.
    let _ = io::stderr().write_all(text.as_bytes());
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every option, argument and subcommand has help text.
    #[test]
    fn every_option_has_help() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                if sub.get_name() == "help" {
                    continue;
                }
                if sub.get_about().is_none() {
                    missing.push(format!("{path} {}", sub.get_name()));
                }
                walk(sub, &format!("{path} {}", sub.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "texlate", &mut missing);
        assert!(missing.is_empty(), "without help text: {missing:?}");
    }
}

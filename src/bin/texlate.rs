//! The `texlate` command line.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use texlate::diagnostic::{Diagnostic, Input, Kind};
use texlate::{ir, isa, translate, Error, Form, Isa, ReadOptions};

/// The exit codes, as `--help` and README state them.
const EXIT_CODES: &str = "\
Exit status:
  0  success
  1  the input was rejected (parse, decode, validation, unsupported, bindings/regmap file,
     or a semantic-check disagreement); the message gives file, line and column
  2  usage error (unknown option, missing argument)
  3  I/O error (a file cannot be read or written)";

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
    /// `explain` also print the Report as JSON.
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
    /// NVIDIA Maxwell SM50/SM52 (nvdisasm listings, word streams, cubins).
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
}

impl From<ReadArgs> for ReadOptions {
    fn from(a: ReadArgs) -> Self {
        ReadOptions {
            igc_compatible: !a.strict,
        }
    }
}

/// Warns about what a vISA text breaks although IGC 1.0.12504 writes it (read by default,
/// refused by `--strict`): the strict reading's refusal, as a warning.
fn warn_igc_relaxations(isa: Isa, bytes: &[u8], options: ReadOptions) {
    if isa != Isa::Visa || !options.igc_compatible {
        return;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    if isa::codec(isa).looks_binary(bytes) {
        return;
    }
    if let Err(e) = texlate::parse_text_with(isa, text, ReadOptions::default()) {
        eprintln!(
            "texlate: warning: {e} (IGC 1.0.12504 writes this itself, so it is read; --strict refuses it)"
        );
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
    Translate {
        #[command(flatten)]
        args: TranslateArgs,
        /// Input file, or `-` for standard input.
        input: PathBuf,
        /// Output file (default: standard output for text).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Binary to text (for a text input, use `asm` or `translate`).
    Disasm {
        /// The input's instruction set.
        #[arg(long, value_enum)]
        isa: IsaArg,
        /// Instructions as hex instead of a file.
        #[arg(long, num_args = 1.., conflicts_with = "file")]
        hex: Option<Vec<String>>,
        /// Input file, or `-` for standard input.
        #[arg(required_unless_present = "hex")]
        file: Option<PathBuf>,
        /// Output file (default: standard output).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
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
        /// Output file (default: standard output).
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
        let input = Input::detect(isa, &self.name, &self.bytes);
        let config: Vec<Input<'_>> = options
            .into_iter()
            .flat_map(|o| [&o.bindings, &o.regmap])
            .flatten()
            .map(|(name, text)| Input::text(name, text))
            .collect();
        Failure::diag(Diagnostic::from_error(&e, &input, &config))
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
        Some(path) => {
            let mut tmp = path.as_os_str().to_owned();
            tmp.push(".texlate-tmp");
            let tmp = PathBuf::from(tmp);
            fs::write(&tmp, bytes)
                .and_then(|()| fs::rename(&tmp, path))
                .map_err(|e| {
                    let _ = fs::remove_file(&tmp);
                    io_error("writing", path, e)
                })
        }
    }
}

/// vISA binary output holds texture instructions only: declarations and other instructions
/// of a `.visaasm` file have no encoding here. Say so rather than drop them silently.
fn note_unencoded_lines(isa: Isa, form: Form, program: &texlate::Program) {
    if isa != Isa::Visa || form != Form::Binary {
        return;
    }
    // ALU instructions read from text stay text lines here too.
    let skipped = program
        .alu_as_read()
        .items
        .iter()
        .filter(|i| matches!(i, ir::Item::Opaque(_)))
        .count();
    if skipped > 0 {
        let _ = writeln!(
            io::stderr(),
            "texlate: note: {skipped} non-texture lines (declarations, other instructions) have no vISA binary form here and are not in the output"
        );
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
    if from == Isa::Visa && isa::visa::is_isa_container(&source.bytes) {
        let c = isa::visa::decode_isa_container(&source.bytes)
            .map_err(|e| source.fail(from, None, e))?;
        return Err(source.fail(from, None, isa::visa::container_refusal(&c)));
    }
    Ok(())
}

fn run(cli: Cli) -> Result<(), Failure> {
    let json = cli.json;
    match cli.command {
        Command::Translate {
            args,
            input,
            output,
        } => {
            let options = args.options()?;
            let source = Source::read(&input)?;
            refuse_container(options.from, &source)?;
            warn_igc_relaxations(options.from, &source.bytes, options.read);
            let t = translate::translate(&source.bytes, &options)
                .map_err(|e| source.fail(options.from, Some(&options), e))?;
            if options.from == options.to {
                note_unencoded_lines(options.to, options.emit, &t.program);
            }
            warn_encoding(options.to, &t.program, options.emit);
            if json {
                write_output(output.as_deref(), t.report.to_json().as_bytes())
            } else {
                write_output(output.as_deref(), &t.output)
            }
        }
        Command::Disasm {
            isa: isa_arg,
            hex,
            file,
            output,
        } => {
            let isa = Isa::from(isa_arg);
            let codec = isa::codec(isa);
            let program = match (hex, file) {
                (Some(words), _) => {
                    let words: Vec<&str> = words.iter().map(String::as_str).collect();
                    codec.decode_hex(&words).map_err(|e| {
                        Failure::diag(Diagnostic::from_error(&e, &Input::binary("--hex"), &[]))
                    })?
                }
                (None, Some(file)) => {
                    let source = Source::read(&file)?;
                    if isa == Isa::Visa && isa::visa::is_isa_container(&source.bytes) {
                        let c = isa::visa::decode_isa_container(&source.bytes)
                            .map_err(|e| source.fail(isa, None, e))?;
                        let text = isa::visa::print_isa_container(&c);
                        return write_output(output.as_deref(), text.as_bytes());
                    }
                    if !codec.looks_binary(&source.bytes) && looks_like_text(&source.bytes) {
                        return Err(Failure::diag(
                            Diagnostic::new(
                                Kind::Input,
                                format!("this file is text, not {} binary", isa.name()),
                            )
                            .in_file(source.name.clone())
                            .with_help(format!(
                                "`disasm` reads binaries; to assemble text use `texlate asm --isa {0}`, to read or convert it use `texlate translate --from {0} --to ...`",
                                isa.name()
                            )),
                        ));
                    }
                    codec
                        .decode_binary(&source.bytes)
                        .map_err(|e| source.fail(isa, None, e))?
                }
                (None, None) => unreachable!("clap requires a file or --hex"),
            };
            let text = codec.print_text(&program).map_err(|e| {
                Failure::diag(Diagnostic::from_error(&e, &Input::binary("output"), &[]))
            })?;
            write_output(output.as_deref(), text.as_bytes())
        }
        Command::Asm {
            isa: isa_arg,
            hex,
            emit,
            input,
            output,
            read,
        } => {
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
                    .report
            } else {
                translate::lower_program(&source, &options)
                    .map_err(fail)?
                    .report
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
            if report.agrees() {
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

/// Whether `bytes` read as text: UTF-8 without control characters other than whitespace.
fn looks_like_text(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && std::str::from_utf8(bytes)
            .is_ok_and(|s| s.chars().all(|c| !c.is_control() || c.is_whitespace()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = cli.json;
    let color = match cli.color {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            use std::io::IsTerminal;
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stderr().is_terminal()
        }
    };
    let (diagnostic, code) = match run(cli) {
        Ok(()) | Err(Failure::ClosedPipe) => return ExitCode::SUCCESS,
        Err(Failure::Diag(d)) => {
            let code = if d.kind == Kind::Io { 3 } else { 1 };
            (*d, code)
        }
        Err(Failure::Usage(msg)) => {
            let mut cmd = Cli::command();
            cmd.error(clap::error::ErrorKind::MissingRequiredArgument, msg)
                .exit()
        }
        Err(Failure::Refused(msg)) => (Diagnostic::new(Kind::Input, msg), 1),
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

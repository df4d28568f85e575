//! The `texlate` command line.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use texlate::{ir, isa, translate, Error, Form, Isa, ReadOptions};

#[derive(Parser)]
#[command(
    name = "texlate",
    version,
    about = "Translate GPU texture instructions between Intel vISA, DXBC and NVIDIA SASS"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum IsaArg {
    Visa,
    Dxbc,
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
    Text,
    Binary,
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
    Pixel,
    Compute,
    Vertex,
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
    /// Output form: text (a listing or kernel) or binary (word stream, DXBC container, vISA
    /// instruction bytes).
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
                    let text = fs::read_to_string(path)
                        .map_err(|e| Failure::Io(format!("reading {}: {e}", path.display())))?;
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
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print the Report as JSON instead of the translation.
        #[arg(long)]
        json: bool,
    },
    /// Binary to text.
    Disasm {
        #[arg(long, value_enum)]
        isa: IsaArg,
        /// Instructions as hex instead of a file.
        #[arg(long, num_args = 1.., conflicts_with = "file")]
        hex: Option<Vec<String>>,
        /// Input file, or `-` for standard input.
        #[arg(required_unless_present = "hex")]
        file: Option<PathBuf>,
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Text to binary.
    Asm {
        #[arg(long, value_enum)]
        isa: IsaArg,
        /// Print the encoding as hex, one instruction per line.
        #[arg(long)]
        hex: bool,
        /// A file, `-` for standard input, or the instruction text itself.
        input: String,
        #[arg(short, long)]
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
        /// The Report as JSON.
        #[arg(long)]
        json: bool,
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
}

/// A failure of the command, with the exit code it maps to.
enum Failure {
    Io(String),
    Texlate(Error),
    /// The semantic models could not read a program.
    Check(String),
    /// The semantic check found a disagreement (already printed).
    Disagree,
    /// The input is valid but the command has nothing to do with it (exit 1).
    Refused(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Texlate(e)
    }
}

fn read_input(path: &Path) -> Result<Vec<u8>, Failure> {
    if path.as_os_str() == "-" {
        let mut buf = Vec::new();
        io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Failure::Io(format!("reading standard input: {e}")))?;
        Ok(buf)
    } else {
        fs::read(path).map_err(|e| Failure::Io(format!("reading {}: {e}", path.display())))
    }
}

/// Writes the whole output at once, to a temporary file renamed into place, so a failure
/// never leaves a half-written output behind.
fn write_output(path: Option<&Path>, bytes: &[u8]) -> Result<(), Failure> {
    match path {
        None => io::stdout()
            .write_all(bytes)
            .map_err(|e| Failure::Io(format!("writing standard output: {e}"))),
        Some(path) => {
            let mut tmp = path.as_os_str().to_owned();
            tmp.push(".texlate-tmp");
            let tmp = PathBuf::from(tmp);
            fs::write(&tmp, bytes)
                .and_then(|()| fs::rename(&tmp, path))
                .map_err(|e| {
                    let _ = fs::remove_file(&tmp);
                    Failure::Io(format!("writing {}: {e}", path.display()))
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
        eprintln!(
            "texlate: note: {skipped} non-texture lines (declarations, other instructions) have no vISA binary form here and are not in the output"
        );
    }
}

/// A vISA `.isa` container is read (its kernels and sampler instructions), and refused for
/// translation with what IGC 12504's writer cut from its first sampler instruction.
fn refuse_container(from: Isa, bytes: &[u8]) -> Result<(), Failure> {
    if from == Isa::Visa && isa::visa::is_isa_container(bytes) {
        let c = isa::visa::decode_isa_container(bytes)?;
        return Err(Failure::Texlate(isa::visa::container_refusal(&c)));
    }
    Ok(())
}

fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Translate {
            args,
            input,
            output,
            json,
        } => {
            let options = args.options()?;
            let bytes = read_input(&input)?;
            refuse_container(options.from, &bytes)?;
            warn_igc_relaxations(options.from, &bytes, options.read);
            let t = translate::translate(&bytes, &options)?;
            if options.from == options.to {
                note_unencoded_lines(options.to, options.emit, &t.program);
            }
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
            let program = match (hex, file) {
                (Some(words), _) => {
                    let words: Vec<&str> = words.iter().map(String::as_str).collect();
                    isa::codec(isa).decode_hex(&words)?
                }
                (None, Some(file)) => {
                    let bytes = read_input(&file)?;
                    if isa == Isa::Visa && isa::visa::is_isa_container(&bytes) {
                        let c = isa::visa::decode_isa_container(&bytes)?;
                        let text = isa::visa::print_isa_container(&c);
                        return write_output(output.as_deref(), text.as_bytes());
                    }
                    isa::codec(isa).decode_binary(&bytes)?
                }
                (None, None) => unreachable!("clap requires a file or --hex"),
            };
            let text = isa::codec(isa).print_text(&program)?;
            write_output(output.as_deref(), text.as_bytes())
        }
        Command::Asm {
            isa: isa_arg,
            hex,
            input,
            output,
            read,
        } => {
            let isa = Isa::from(isa_arg);
            let path = Path::new(&input);
            let text = if input == "-" || path.is_file() {
                let bytes = read_input(path)?;
                String::from_utf8(bytes).map_err(|e| {
                    Failure::Io(format!(
                        "{input}: not UTF-8 text (byte offset {:#x})",
                        e.utf8_error().valid_up_to()
                    ))
                })?
            } else if !input.contains(char::is_whitespace) {
                // Every instruction has operands after a space: a single word is a path.
                return Err(Failure::Io(format!("reading {input}: no such file")));
            } else {
                input.clone()
            };
            warn_igc_relaxations(isa, text.as_bytes(), read.into());
            let program = texlate::parse_text_with(isa, &text, read.into())?;
            let out = if hex {
                isa::codec(isa).print_hex(&program)?.into_bytes()
            } else {
                let bytes = isa::codec(isa).encode_binary(&program)?;
                note_unencoded_lines(isa, Form::Binary, &program);
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
            ..
        } => {
            let bytes = read_input(&input)?;
            if Isa::from(isa) == Isa::Visa && isa::visa::is_isa_container(&bytes) {
                let c = isa::visa::decode_isa_container(&bytes)?;
                let mut text = isa::visa::print_isa_container(&c);
                text.push_str(
                    "// no IR: an instruction without its last operands does not lift \
                     (translate the .visaasm text)\n",
                );
                return write_output(None, text.as_bytes());
            }
            warn_igc_relaxations(Isa::from(isa), &bytes, read.into());
            let program = texlate::decode_with(Isa::from(isa), &bytes, read.into())?;
            write_output(None, ir::display_program(&program).as_bytes())
        }
        Command::Explain {
            from,
            to,
            bindings,
            regmap,
            simd,
            json,
            input,
            read,
            ..
        } => {
            let (Some(from), Some(to)) = (from, to) else {
                return Err(Failure::Io(
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
                igc_compat: false,
            };
            let options = args.options()?;
            let bytes = read_input(&input)?;
            refuse_container(options.from, &bytes)?;
            warn_igc_relaxations(options.from, &bytes, options.read);
            let source = texlate::decode_with(options.from, &bytes, options.read)?;
            let report = if options.from == options.to {
                translate::translate_program(source, &options)?.report
            } else {
                translate::lower_program(&source, &options)?.report
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
            let bytes = read_input(&input)?;
            refuse_container(options.from, &bytes)?;
            let t = translate::translate(&bytes, &options)?;
            let report = translate::check(&bytes, &t, &options, seed)
                .map_err(|e| Failure::Check(e.to_string()))?;
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
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Io(msg)) => {
            eprintln!("texlate: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Texlate(e)) => {
            eprintln!("texlate: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Check(e)) => {
            eprintln!("texlate: the semantic check cannot read the programs: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Refused(msg)) => {
            eprintln!("texlate: {msg}");
            ExitCode::from(1)
        }
        Err(Failure::Disagree) => {
            eprintln!("texlate: the translation and its source disagree (see above)");
            ExitCode::from(1)
        }
    }
}

//! The C API of texlate: a small, stable C ABI over [`texlate::translate::translate`].
//!
//! C programs include `include/texlate.h` (generated from this file by cbindgen) and link
//! `libtexlate_capi`. One call translates a buffer; its result holds the output, the Report
//! as JSON, or the error (a [`TexlateStatus`] code, a compiler-style message and the same
//! error as JSON), and is freed with [`texlate_result_free`]. No panic crosses the boundary:
//! one becomes [`TexlateStatus::Panic`].
//!
//! ```
//! use std::ptr;
//! use texlate_capi::*;
//!
//! let input = b"TEXS R6, R4, R4, R5, 0x6e, 2D, RGBA\n";
//! let options = texlate_options_default(TEXLATE_ISA_NVIDIA, TEXLATE_ISA_DXBC);
//! let mut result = ptr::null_mut();
//! // SAFETY: the input, the options and the result pointer are valid.
//! let status = unsafe { texlate_translate(input.as_ptr(), input.len(), &options, &mut result) };
//! assert_eq!(status, TexlateStatus::Ok);
//! let mut len = 0;
//! // SAFETY: `result` came from texlate_translate and is freed once, below.
//! unsafe {
//!     let output = std::slice::from_raw_parts(texlate_result_output(result, &mut len), len);
//!     assert!(String::from_utf8_lossy(output).contains("sample"));
//!     texlate_result_free(result);
//! }
//! ```

#![warn(missing_docs)]

use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use texlate::diagnostic::{Diagnostic, Input};
use texlate::isa::nvidia::Sm;
use texlate::translate::{translate, GradPolicy, Options};
use texlate::{Error, Form, Isa, ReadOptions};

/// The version of this ABI; it changes only when a declaration of the header does.
pub const TEXLATE_ABI_VERSION: u32 = 2;

/// Intel vISA (IGC `.visaasm` text, vISA instruction bytes).
pub const TEXLATE_ISA_VISA: u32 = 0;
/// DirectX SM4/SM5 (fxc listings, token streams, DXBC containers).
pub const TEXLATE_ISA_DXBC: u32 = 1;
/// NVIDIA Maxwell/Pascal SM50..SM62 (nvdisasm listings, word streams, cubins).
pub const TEXLATE_ISA_NVIDIA: u32 = 2;

/// `TexlateOptions::sm`: NVIDIA SM50 (also 0, the default).
pub const TEXLATE_SM_50: u32 = 50;
/// NVIDIA SM52: the sparse predicate, `.LC`, TEXS/TLDS/TLD4S `.F16` decode from here on.
pub const TEXLATE_SM_52: u32 = 52;
/// NVIDIA SM53.
pub const TEXLATE_SM_53: u32 = 53;
/// NVIDIA SM60: `.RTZ` of the `.F16` forms decodes from here on; TLD4 prints no `.NDV`.
pub const TEXLATE_SM_60: u32 = 60;
/// NVIDIA SM61.
pub const TEXLATE_SM_61: u32 = 61;
/// NVIDIA SM62 (Tegra X2): decodes as SM61.
pub const TEXLATE_SM_62: u32 = 62;

/// Output as text (a listing or kernel).
pub const TEXLATE_EMIT_TEXT: u32 = 0;
/// `--grad exact`: a native form or the exact emulation the target's compiler emits.
pub const TEXLATE_GRAD_EXACT: u32 = 0;
/// `--grad approx`: the LOD the gradients give and an explicit-LOD sample, with a warning.
pub const TEXLATE_GRAD_APPROX: u32 = 1;
/// `--grad error`: native forms only.
pub const TEXLATE_GRAD_ERROR: u32 = 2;
/// Output as binary (word stream, DXBC container, vISA instruction bytes).
pub const TEXLATE_EMIT_BINARY: u32 = 1;
/// DX only: the bare SM4/SM5 token stream, without the DXBC container.
pub const TEXLATE_EMIT_TOKENS: u32 = 2;

/// The outcome of a call.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexlateStatus {
    /// Success.
    Ok = 0,
    /// A text input that does not parse.
    Parse = 1,
    /// A binary input that does not decode.
    Decode = 2,
    /// An instruction that breaks a rule of its ISA.
    Validation = 3,
    /// A translation texlate cannot carry out.
    Unsupported = 4,
    /// A malformed bindings or register-map text.
    Config = 5,
    /// A null pointer, an unknown ISA or emit code, text that is not UTF-8.
    InvalidArgument = 6,
    /// An internal error (a panic, caught at the boundary).
    Panic = 7,
}

/// What to translate, and how. Start from [`texlate_options_default`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct TexlateOptions {
    /// The input's ISA (`TEXLATE_ISA_*`).
    pub from: u32,
    /// The output's ISA (`TEXLATE_ISA_*`).
    pub to: u32,
    /// `TEXLATE_EMIT_TEXT`, `TEXLATE_EMIT_BINARY` or `TEXLATE_EMIT_TOKENS`.
    pub emit: u32,
    /// The bindings file's text (TOML, `[[binding]]` rows), NUL-terminated, or NULL.
    pub bindings: *const c_char,
    /// The register-map file's text (TOML, `[[map]]` rows), NUL-terminated, or NULL.
    pub regmap: *const c_char,
    /// The input's name in error messages (NUL-terminated), or NULL for `<input>`.
    pub input_name: *const c_char,
    /// SIMD width of a vISA target: 8 or 16 (0: 16).
    pub simd: u32,
    /// Refuse inputs with non-texture items instead of keeping them as comments.
    pub strict: bool,
    /// Accept IGC 1.0.12504's mixed F/HF `sample4` parameters (vISA text).
    pub igc_compat: bool,
    /// Gradient samples without a native form: `TEXLATE_GRAD_EXACT` (0),
    /// `TEXLATE_GRAD_APPROX` or `TEXLATE_GRAD_ERROR`.
    pub grad: u32,
    /// The NVIDIA side's architecture (`--sm`): `TEXLATE_SM_50` (or 0), `_52`, `_53`, `_60`,
    /// `_61` or `_62`, for inputs that do not name theirs (a cubin's ELF flags and a listing's
    /// `.headerflags` do). Other ISAs ignore it.
    pub sm: u32,
}

/// A translation's result, owned by the caller until [`texlate_result_free`].
pub struct TexlateResult {
    status: TexlateStatus,
    output: Vec<u8>,
    report_json: Option<CString>,
    error_message: Option<CString>,
    error_json: Option<CString>,
}

impl TexlateResult {
    fn error(status: TexlateStatus, message: String, json: String) -> Self {
        TexlateResult {
            status,
            output: Vec::new(),
            report_json: None,
            error_message: Some(c_string(message)),
            error_json: Some(c_string(json)),
        }
    }

    fn invalid(message: &str) -> Self {
        let d = Diagnostic::new(texlate::diagnostic::Kind::Input, message);
        TexlateResult::error(TexlateStatus::InvalidArgument, d.render(false), d.to_json())
    }
}

/// A C string of `s` (an interior NUL, which texlate never writes, is dropped).
fn c_string(s: String) -> CString {
    CString::new(s.replace('\0', "")).expect("no interior NUL")
}

/// The SM of a `TEXLATE_SM_*` code (0: SM50).
fn sm(code: u32) -> Option<Sm> {
    match code {
        0 | TEXLATE_SM_50 => Some(Sm::SM50),
        TEXLATE_SM_52 => Some(Sm::SM52),
        TEXLATE_SM_53 => Some(Sm::SM53),
        TEXLATE_SM_60 => Some(Sm::SM60),
        TEXLATE_SM_61 => Some(Sm::SM61),
        TEXLATE_SM_62 => Some(Sm::SM62),
        _ => None,
    }
}

fn isa(code: u32) -> Option<Isa> {
    match code {
        TEXLATE_ISA_VISA => Some(Isa::Visa),
        TEXLATE_ISA_DXBC => Some(Isa::Dxbc),
        TEXLATE_ISA_NVIDIA => Some(Isa::Nvidia),
        _ => None,
    }
}

/// The text behind a nullable C string.
///
/// # Safety
/// `p` is NULL or a NUL-terminated string.
unsafe fn text(p: *const c_char, what: &str) -> Result<Option<String>, TexlateResult> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller passes a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str()
        .map(|s| Some(s.to_string()))
        .map_err(|_| TexlateResult::invalid(&format!("{what} is not UTF-8")))
}

/// Runs `f`, turning a panic into a `TexlateStatus::Panic` result.
fn guarded(f: impl FnOnce() -> TexlateResult) -> TexlateResult {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let d = Diagnostic::new(
            texlate::diagnostic::Kind::Check,
            format!("internal error (a texlate bug, please report it): {what}"),
        );
        TexlateResult::error(TexlateStatus::Panic, d.render(false), d.to_json())
    })
}

/// Options translating `from` to `to` (`TEXLATE_ISA_*`): text output, no bindings or
/// register map, SIMD16, not strict.
#[no_mangle]
pub extern "C" fn texlate_options_default(from: u32, to: u32) -> TexlateOptions {
    TexlateOptions {
        from,
        to,
        emit: TEXLATE_EMIT_TEXT,
        bindings: ptr::null(),
        regmap: ptr::null(),
        input_name: ptr::null(),
        simd: 16,
        strict: false,
        grad: TEXLATE_GRAD_EXACT,
        igc_compat: false,
        sm: TEXLATE_SM_50,
    }
}

/// The `TEXLATE_ISA_*` code of `name` (`"visa"`, `"dxbc"` or `"nvidia"`), or -1.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn texlate_isa_from_name(name: *const c_char) -> i32 {
    if name.is_null() {
        return -1;
    }
    // SAFETY: the caller passes a NUL-terminated string.
    match unsafe { CStr::from_ptr(name) }.to_bytes() {
        b"visa" => TEXLATE_ISA_VISA as i32,
        b"dxbc" => TEXLATE_ISA_DXBC as i32,
        b"nvidia" => TEXLATE_ISA_NVIDIA as i32,
        _ => -1,
    }
}

/// Translates `input` (`len` bytes of text or binary of `options->from`) into
/// `options->to`. Always stores a result in `*result` (unless `result` is NULL) — the
/// output and Report, or the error — to free with [`texlate_result_free`]; returns its
/// status.
///
/// # Safety
/// `input` points to `len` readable bytes (or is NULL with `len` 0); `options` is NULL or
/// valid, its strings NULL or NUL-terminated; `result` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn texlate_translate(
    input: *const u8,
    len: usize,
    options: *const TexlateOptions,
    result: *mut *mut TexlateResult,
) -> TexlateStatus {
    let r = guarded(|| {
        // SAFETY: the caller's contract, passed on.
        unsafe { translate_inner(input, len, options) }
    });
    let status = r.status;
    if !result.is_null() {
        // SAFETY: `result` is writable.
        unsafe { *result = Box::into_raw(Box::new(r)) };
    }
    status
}

/// # Safety
/// As [`texlate_translate`].
unsafe fn translate_inner(
    input: *const u8,
    len: usize,
    options: *const TexlateOptions,
) -> TexlateResult {
    if options.is_null() {
        return TexlateResult::invalid("options is NULL");
    }
    if input.is_null() && len != 0 {
        return TexlateResult::invalid("input is NULL");
    }
    // SAFETY: `options` is valid.
    let o = unsafe { *options };
    let bytes: &[u8] = if len == 0 {
        &[]
    } else {
        // SAFETY: `input` points to `len` readable bytes.
        unsafe { std::slice::from_raw_parts(input, len) }
    };
    let (Some(from), Some(to)) = (isa(o.from), isa(o.to)) else {
        return TexlateResult::invalid("unknown ISA code (TEXLATE_ISA_VISA, _DXBC or _NVIDIA)");
    };
    let emit = match o.emit {
        TEXLATE_EMIT_TEXT => Form::Text,
        TEXLATE_EMIT_BINARY => Form::Binary,
        TEXLATE_EMIT_TOKENS => Form::Tokens,
        _ => {
            return TexlateResult::invalid(
                "unknown emit code (TEXLATE_EMIT_TEXT, _BINARY or _TOKENS)",
            )
        }
    };
    let simd = match o.simd {
        0 | 16 => 16,
        8 => 8,
        _ => return TexlateResult::invalid("simd is 8 or 16"),
    };
    let Some(sm) = sm(o.sm) else {
        return TexlateResult::invalid(
            "unknown sm code (TEXLATE_SM_50, _52, _53, _60, _61 or _62)",
        );
    };
    let grad = match o.grad {
        TEXLATE_GRAD_EXACT => GradPolicy::Exact,
        TEXLATE_GRAD_APPROX => GradPolicy::Approx,
        TEXLATE_GRAD_ERROR => GradPolicy::Error,
        _ => {
            return TexlateResult::invalid(
                "unknown grad code (TEXLATE_GRAD_EXACT, _APPROX or _ERROR)",
            )
        }
    };
    // SAFETY: the strings are NULL or NUL-terminated.
    let strings = unsafe {
        (
            text(o.bindings, "bindings"),
            text(o.regmap, "regmap"),
            text(o.input_name, "input_name"),
        )
    };
    let (bindings, regmap, name) = match strings {
        (Ok(b), Ok(r), Ok(n)) => (b, r, n.unwrap_or_else(|| "<input>".into())),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e,
    };
    let options = Options {
        from,
        to,
        emit,
        bindings: bindings.map(|t| ("bindings".to_string(), t)),
        regmap: regmap.map(|t| ("regmap".to_string(), t)),
        simd,
        stage: None,
        strict: o.strict,
        read: ReadOptions {
            igc_compatible: o.igc_compat,
            sm,
        },
        grad,
    };
    match translate(bytes, &options) {
        Ok(t) => TexlateResult {
            status: TexlateStatus::Ok,
            report_json: Some(c_string(t.report().to_json())),
            output: t.output,
            error_message: None,
            error_json: None,
        },
        Err(e) => {
            let status = match &e {
                Error::Parse(_) => TexlateStatus::Parse,
                Error::Decode(_) => TexlateStatus::Decode,
                Error::Validation(_) => TexlateStatus::Validation,
                Error::Unsupported(_) => TexlateStatus::Unsupported,
                Error::Config(_) => TexlateStatus::Config,
            };
            let config: Vec<Input<'_>> = [&options.bindings, &options.regmap]
                .into_iter()
                .flatten()
                .map(|(n, t)| Input::text(n, t))
                .collect();
            let d = Diagnostic::from_error(&e, &Input::detect(from, &name, bytes), &config);
            TexlateResult::error(status, d.render(false), d.to_json())
        }
    }
}

/// The result's status.
///
/// # Safety
/// `result` is NULL or a live result.
#[no_mangle]
pub unsafe extern "C" fn texlate_result_status(result: *const TexlateResult) -> TexlateStatus {
    // SAFETY: `result` is NULL or live.
    match unsafe { result.as_ref() } {
        Some(r) => r.status,
        None => TexlateStatus::InvalidArgument,
    }
}

/// The translation's output bytes (text is not NUL-terminated), their count in `*len`; NULL
/// with `*len` 0 for a failed translation. Valid until the result is freed.
///
/// # Safety
/// `result` is NULL or a live result; `len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn texlate_result_output(
    result: *const TexlateResult,
    len: *mut usize,
) -> *const u8 {
    // SAFETY: `result` is NULL or live.
    let r = unsafe { result.as_ref() };
    let (p, n) = match r {
        Some(r) if r.status == TexlateStatus::Ok => (r.output.as_ptr(), r.output.len()),
        _ => (ptr::null(), 0),
    };
    if !len.is_null() {
        // SAFETY: `len` is writable.
        unsafe { *len = n };
    }
    p
}

/// The Report as JSON (NUL-terminated), or NULL for a failed translation. Valid until the
/// result is freed.
///
/// # Safety
/// `result` is NULL or a live result.
#[no_mangle]
pub unsafe extern "C" fn texlate_result_report_json(result: *const TexlateResult) -> *const c_char {
    // SAFETY: `result` is NULL or live.
    unsafe { result.as_ref() }
        .and_then(|r| r.report_json.as_ref())
        .map_or(ptr::null(), |s| s.as_ptr())
}

/// The error as a compiler prints it (file, line and column, the source line with a caret),
/// or NULL on success. Valid until the result is freed.
///
/// # Safety
/// `result` is NULL or a live result.
#[no_mangle]
pub unsafe extern "C" fn texlate_result_error_message(
    result: *const TexlateResult,
) -> *const c_char {
    // SAFETY: `result` is NULL or live.
    unsafe { result.as_ref() }
        .and_then(|r| r.error_message.as_ref())
        .map_or(ptr::null(), |s| s.as_ptr())
}

/// The error as one JSON object (as `texlate --json` prints it), or NULL on success. Valid
/// until the result is freed.
///
/// # Safety
/// `result` is NULL or a live result.
#[no_mangle]
pub unsafe extern "C" fn texlate_result_error_json(result: *const TexlateResult) -> *const c_char {
    // SAFETY: `result` is NULL or live.
    unsafe { result.as_ref() }
        .and_then(|r| r.error_json.as_ref())
        .map_or(ptr::null(), |s| s.as_ptr())
}

/// Frees a result (NULL is ignored).
///
/// # Safety
/// `result` is NULL or a result from [`texlate_translate`] not yet freed.
#[no_mangle]
pub unsafe extern "C" fn texlate_result_free(result: *mut TexlateResult) {
    if !result.is_null() {
        // SAFETY: `result` came from Box::into_raw in texlate_translate.
        drop(unsafe { Box::from_raw(result) });
    }
}

/// The name of a status (`"ok"`, `"parse"`, ...), a static string.
#[no_mangle]
pub extern "C" fn texlate_status_name(status: TexlateStatus) -> *const c_char {
    let s: &'static CStr = match status {
        TexlateStatus::Ok => c"ok",
        TexlateStatus::Parse => c"parse",
        TexlateStatus::Decode => c"decode",
        TexlateStatus::Validation => c"validation",
        TexlateStatus::Unsupported => c"unsupported",
        TexlateStatus::Config => c"config",
        TexlateStatus::InvalidArgument => c"invalid_argument",
        TexlateStatus::Panic => c"panic",
    };
    s.as_ptr()
}

/// texlate's version (`"0.1.0"`), a static string.
#[no_mangle]
pub extern "C" fn texlate_version() -> *const c_char {
    const VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version has no NUL"),
        };
    VERSION.as_ptr()
}

/// [`TEXLATE_ABI_VERSION`], for a program to check the library it loaded.
#[no_mangle]
pub extern "C" fn texlate_abi_version() -> u32 {
    TEXLATE_ABI_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_a_status() {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = guarded(|| panic!("boom"));
        std::panic::set_hook(prev);
        assert_eq!(r.status, TexlateStatus::Panic);
        let message = r.error_message.unwrap().into_string().unwrap();
        assert!(
            message.contains("internal error") && message.contains("boom"),
            "{message}"
        );
    }

    #[test]
    fn null_arguments_are_refused() {
        let mut result = ptr::null_mut();
        // SAFETY: null options are allowed and refused.
        let status = unsafe { texlate_translate(ptr::null(), 0, ptr::null(), &mut result) };
        assert_eq!(status, TexlateStatus::InvalidArgument);
        // SAFETY: `result` is live until freed.
        unsafe {
            assert!(!texlate_result_error_message(result).is_null());
            assert!(texlate_result_report_json(result).is_null());
            texlate_result_free(result);
        }
        let mut options = texlate_options_default(7, TEXLATE_ISA_DXBC);
        // SAFETY: valid arguments, a null result pointer.
        let status = unsafe { texlate_translate(ptr::null(), 0, &options, ptr::null_mut()) };
        assert_eq!(status, TexlateStatus::InvalidArgument);
        options.from = TEXLATE_ISA_DXBC;
        options.simd = 12;
        // SAFETY: as above.
        let status = unsafe { texlate_translate(ptr::null(), 0, &options, ptr::null_mut()) };
        assert_eq!(status, TexlateStatus::InvalidArgument);
    }

    #[test]
    fn the_sm_decides_what_an_nvidia_input_may_hold() {
        // `.LC` is decoded from SM52 on (nvdisasm; scripts/sweep-nvidia-fields.py).
        let input = b"TEX.LC R4, R8, R12, 0x6e, 2D, 0xf\n";
        let mut options = texlate_options_default(TEXLATE_ISA_NVIDIA, TEXLATE_ISA_NVIDIA);
        options.emit = TEXLATE_EMIT_BINARY;
        for (sm, want) in [
            (0, TexlateStatus::Parse),
            (TEXLATE_SM_50, TexlateStatus::Parse),
            (TEXLATE_SM_52, TexlateStatus::Ok),
            (TEXLATE_SM_61, TexlateStatus::Ok),
            (TEXLATE_SM_62, TexlateStatus::Ok),
            (51, TexlateStatus::InvalidArgument),
        ] {
            options.sm = sm;
            let mut result = ptr::null_mut();
            // SAFETY: valid arguments.
            let status =
                unsafe { texlate_translate(input.as_ptr(), input.len(), &options, &mut result) };
            assert_eq!(status, want, "sm {sm}");
            // SAFETY: `result` is live until freed.
            unsafe { texlate_result_free(result) };
        }
    }

    #[test]
    fn errors_carry_a_code_a_message_and_json() {
        let input = b"ps_5_0\nsample r0.xyzw, r1.xyxx, t0.xyzw, foo\n";
        let mut options = texlate_options_default(TEXLATE_ISA_DXBC, TEXLATE_ISA_NVIDIA);
        options.input_name = c"shader.asm".as_ptr();
        let mut result = ptr::null_mut();
        // SAFETY: valid arguments.
        let status =
            unsafe { texlate_translate(input.as_ptr(), input.len(), &options, &mut result) };
        assert_eq!(status, TexlateStatus::Parse);
        // SAFETY: `result` is live until freed.
        unsafe {
            let message = CStr::from_ptr(texlate_result_error_message(result))
                .to_str()
                .unwrap();
            assert!(message.contains("--> shader.asm:2:35"), "{message}");
            let json = CStr::from_ptr(texlate_result_error_json(result))
                .to_str()
                .unwrap();
            assert!(json.contains(r#""kind":"parse""#), "{json}");
            let mut len = 1;
            assert!(texlate_result_output(result, &mut len).is_null());
            assert_eq!(len, 0);
            texlate_result_free(result);
        }
    }
}

//! Streaming identity translation (`texlate::stream::transcode`, what `translate --from X
//! --to X` and batches run): for any input of any ISA, to text and to binary, it writes the
//! same bytes as the whole-program path (decode, then encode) or fails with the same error.
//! The first byte picks the ISA, the form and the read options; the rest is the input.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use texlate::isa::nvidia::Sm;
use texlate::stream::{self, StreamError};
use texlate::{Form, Isa, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let isa = [Isa::Nvidia, Isa::Dxbc, Isa::Visa][usize::from(pick % 3)];
    let emit = if pick & 4 == 0 {
        Form::Text
    } else {
        Form::Binary
    };
    let read = ReadOptions {
        igc_compatible: pick & 8 != 0,
        sm: Sm::ALL[usize::from(pick >> 4) % Sm::ALL.len()],
    };
    let whole = texlate::decode_with(isa, input, read).and_then(|p| texlate::encode(isa, &p, emit));
    let mut out = Vec::new();
    let streamed = match stream::transcode(isa, &mut Cursor::new(input), read, emit, &mut out) {
        Ok(_) => Ok(out),
        Err(StreamError::Codec(e)) => Err(e),
        Err(StreamError::Io(e)) => panic!("I/O error on memory: {e}"),
    };
    assert!(
        streamed == whole,
        "{isa:?} -> {emit:?} ({read:?}): stream and whole path differ\nstream: {:?}\nwhole: {:?}",
        streamed
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
        whole
            .as_ref()
            .map(|b| String::from_utf8_lossy(b).into_owned()),
    );
});

//! NVIDIA Maxwell SASS (SM50/SM52) texture instructions: nvdisasm text, 64-bit words with
//! their bundle control words, raw instruction streams and cubin `.text` sections.
//!
//! Layers: [`table`] (the data of `mappings/nvidia.toml`), [`inst`] (one instruction field by
//! field, and its word), [`text`] (one instruction as nvdisasm prints it).

pub mod control;
pub mod inst;
pub mod table;
pub mod text;

pub use inst::{decode_word, encode_word, FieldError, NvInst, RZ};
pub use text::{parse_inst, print_inst};

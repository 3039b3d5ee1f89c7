//! Shared bits of the kibitz benchmark binaries (`gen`, `floor`, `lsp-latency`).

use std::path::PathBuf;

/// splitmix64: a tiny, well-mixed seeded PRNG. The generated files must be
/// byte-identical for a seed on every machine and Rust version, so no
/// external crate whose algorithm could change between releases.
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by Lemire's multiply-shift; the bias is
    /// below 2^-50 for the small `n` used here.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Minimal `--name value` argument parsing: the binaries take a handful of
/// options and clap would be one more dependency to build for nothing.
pub struct Args(Vec<String>);

impl Args {
    pub fn from_env() -> Self {
        Args(std::env::args().skip(1).collect())
    }

    pub fn value(&self, name: &str) -> Option<&str> {
        let flag = format!("--{name}");
        self.0
            .iter()
            .position(|a| *a == flag)
            .and_then(|i| self.0.get(i + 1))
            .map(String::as_str)
    }

    pub fn number<T: std::str::FromStr>(&self, name: &str, default: T) -> Result<T, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => v.parse().map_err(|_| format!("--{name}: `{v}` is not a valid number")),
        }
    }

    pub fn path(&self, name: &str) -> Result<PathBuf, String> {
        self.value(name)
            .map(PathBuf::from)
            .ok_or_else(|| format!("missing --{name} <path>"))
    }
}

/// Prints `error: ...` and exits with status 2; for `main`s that return early.
pub fn die(message: impl std::fmt::Display) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}

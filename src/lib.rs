//! kibitz: language tooling for board-game record files.
//!
//! Layers, each depending only on the ones above it:
//! `text`, `model` ◄ `games` ◄ `formats` ◄ `workspace` ◄ `server`, `cli`.

pub mod cli;
pub mod formats;
pub mod games;
pub mod model;
pub mod server;
pub mod text;
pub mod workspace;

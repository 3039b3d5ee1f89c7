//! Rules engines, one folder per game. Formats ask them for legality,
//! notation and board pictures; they know nothing of files or editors.

pub mod chess;

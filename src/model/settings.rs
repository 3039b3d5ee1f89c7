//! User settings shared by the CLI (from `kibitz.toml`) and the language
//! server (from `workspace/configuration`).

use std::collections::HashMap;

use super::Severity;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoardStyle {
    /// Unicode chess glyphs.
    #[default]
    Unicode,
    /// FEN letters, for terminals and fonts without the glyphs.
    Letters,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Per-code severity; `None` turns the rule off.
    pub severity: HashMap<String, Option<Severity>>,
    pub board_style: BoardStyle,
    pub inlay_hints: bool,
}

impl Settings {
    /// Reads the settings object shared by `kibitz.toml` and the editor's
    /// `kibitz` configuration section. Unknown keys and bad values are
    /// skipped and reported as warnings, never fatal.
    pub fn from_json(value: &serde_json::Value) -> (Settings, Vec<String>) {
        let mut settings = Settings::default();
        let mut problems = Vec::new();
        if let Some(map) = value.get("severity").and_then(|v| v.as_object()) {
            for (code, level) in map {
                match level.as_str() {
                    Some("off") | Some("none") => {
                        settings.severity.insert(code.clone(), None);
                    }
                    Some(name) => match Severity::parse(name) {
                        Some(sev) => {
                            settings.severity.insert(code.clone(), Some(sev));
                        }
                        None => problems.push(format!(
                            "severity for `{code}`: `{name}` is not one of error, warning, information, hint, off"
                        )),
                    },
                    None => problems.push(format!("severity for `{code}` must be a string")),
                }
            }
        }
        let board = value
            .get("board")
            .and_then(|b| b.get("style"))
            .or_else(|| value.get("boardStyle"));
        match board.and_then(|v| v.as_str()) {
            Some("unicode") | None => {}
            Some("letters") | Some("ascii") => settings.board_style = BoardStyle::Letters,
            Some(other) => problems.push(format!("board style `{other}` is not `unicode` or `letters`")),
        }
        let hints = value
            .get("inlayHints")
            .and_then(|h| h.get("enable").or(Some(h)))
            .and_then(|v| v.as_bool());
        if let Some(on) = hints {
            settings.inlay_hints = on;
        }
        (settings, problems)
    }

    /// `kibitz.toml`: the same keys as the editor settings, in TOML.
    pub fn from_toml(text: &str) -> Result<(Settings, Vec<String>), String> {
        Ok(Settings::from_json(&toml_to_json(text)?))
    }
}

/// `kibitz.toml` as the JSON object the editor settings use, so the server
/// can merge the two key by key.
pub fn toml_to_json(text: &str) -> Result<serde_json::Value, String> {
    let value: toml::Value = toml::from_str(text).map_err(|e| e.to_string())?;
    serde_json::to_value(value).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_toml_overrides() {
        let (s, problems) = Settings::from_toml(
            "[severity]\n\"sgs/non-canonical-game\" = \"off\"\n\"sgs/non-ascii\" = \"error\"\n\"x\" = \"loud\"\n[board]\nstyle = \"letters\"\n",
        )
        .unwrap();
        assert_eq!(s.severity.get("sgs/non-canonical-game"), Some(&None));
        assert_eq!(s.severity.get("sgs/non-ascii"), Some(&Some(Severity::Error)));
        assert_eq!(s.board_style, BoardStyle::Letters);
        assert_eq!(problems.len(), 1);
    }

    #[test]
    fn reads_editor_json() {
        let (s, problems) = Settings::from_json(&serde_json::json!({"inlayHints": {"enable": true}}));
        assert!(s.inlay_hints && problems.is_empty());
    }
}

//! Turns schema descriptions into rustdoc text that renders right and raises no rustdoc warnings.

/// Rewrite a schema description for rustdoc: `{@link X}` becomes code, brackets outside code are
/// escaped (they would read as broken intra-doc links), bare URLs get angle brackets, and fenced
/// blocks without a language become `text` so they never run as doctests.
pub fn rustdoc(text: &str) -> Vec<String> {
    let text = replace_links(text);
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            if !in_fence && trimmed.trim() == "```" {
                out.push(format!("{}text", line.trim_end()));
            } else {
                out.push(line.to_string());
            }
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            out.push(line.to_string());
        } else {
            // Four leading spaces would make an indented code block, which rustdoc runs as a test.
            let line = if line.starts_with("    ") {
                line.trim_start()
            } else {
                line
            };
            out.push(escape_outside_code(line));
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

/// `code` with every Unicode text-direction control (U+202A to U+202E, U+2066 to U+2069)
/// written as its `\u{...}` escape. rustc refuses these in comments and literals (they can
/// make code read other than it compiles), and a schema or a server's tool list may carry them
/// in a description or a name: in a string literal the escape means the same character, in a
/// comment it shows where the character was.
pub fn visible_controls(code: String) -> String {
    let control = |c: char| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}');
    if !code.contains(control) {
        return code;
    }
    let mut out = String::with_capacity(code.len() + 16);
    for c in code.chars() {
        if control(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn replace_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("{@link ") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 7..];
        match after.find('}') {
            Some(end) => {
                let target = after[..end].trim();
                let target = target.split('|').next().unwrap_or(target).trim();
                out.push('`');
                out.push_str(target);
                out.push('`');
                rest = &after[end + 1..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

fn escape_outside_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + 8);
    for (i, part) in line.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
            continue;
        }
        let mut words = Vec::new();
        for word in part.split(' ') {
            let w = if word.starts_with("http://") || word.starts_with("https://") {
                let trail = word.trim_end_matches(['.', ',', ';', ')']).len();
                format!("<{}>{}", &word[..trail], &word[trail..])
            } else {
                word.replace('[', "\\[").replace(']', "\\]")
            };
            words.push(w);
        }
        out.push_str(&words.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_brackets_and_urls() {
        assert_eq!(
            rustdoc("See {@link CallToolRequest} and [a-z] at https://x.org/a."),
            vec!["See `CallToolRequest` and \\[a-z\\] at <https://x.org/a>."]
        );
        assert_eq!(rustdoc("`[x]` stays"), vec!["`[x]` stays"]);
        assert_eq!(rustdoc("```\ncode\n```"), vec!["```text", "code", "```"]);
    }
}

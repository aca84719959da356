//! A small HTML tokenizer for search result pages: start tags with their attributes, end tags and
//! text, entities decoded. It replaces a full browser-grade parser (html5ever and selectors, about
//! a megabyte of binary) that the one page shape we read never needed.

/// One piece of an HTML document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    /// `<name attr="value">`, the name lowercased, attribute values decoded.
    Start {
        name: String,
        attrs: Vec<(String, String)>,
    },
    /// `</name>`, the name lowercased.
    End { name: String },
    /// Text between tags, entities decoded.
    Text(std::borrow::Cow<'a, str>),
}

impl Token<'_> {
    /// Whether this is a start tag named `name` whose `class` lists `class`.
    pub(crate) fn has_class(&self, name: &str, class: &str) -> bool {
        match self {
            Token::Start { name: tag, attrs } if tag == name => attrs
                .iter()
                .any(|(k, v)| k == "class" && v.split_ascii_whitespace().any(|c| c == class)),
            _ => false,
        }
    }

    /// The value of an attribute of a start tag.
    pub(crate) fn attr(&self, key: &str) -> Option<&str> {
        match self {
            Token::Start { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str()),
            _ => None,
        }
    }
}

/// The tokens of `html`, skipping comments, doctypes and the bodies of `script` and `style`.
pub(crate) fn tokens(html: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut rest = html;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            push_text(&mut out, rest);
            break;
        };
        push_text(&mut out, &rest[..open]);
        rest = &rest[open..];
        rest = if rest.starts_with("<!--") {
            after(rest, "-->")
        } else if rest.starts_with("<!") || rest.starts_with("<?") {
            after(rest, ">")
        } else if let Some(end) = rest.strip_prefix("</") {
            let (name, tail) = tag_name(end);
            if !name.is_empty() {
                out.push(Token::End { name });
            }
            after(tail, ">")
        } else {
            match start_tag(&rest[1..]) {
                Some((token, tail)) => {
                    let raw = match &token {
                        Token::Start { name, .. } if name == "script" || name == "style" => {
                            Some(format!("</{name}"))
                        }
                        _ => None,
                    };
                    out.push(token);
                    match raw {
                        // Raw text: its `<` are not tags; the end tag is read next round.
                        Some(close) => skip_to_ci(tail, &close),
                        None => tail,
                    }
                }
                None => {
                    // A lone `<` is text.
                    push_text(&mut out, "<");
                    &rest[1..]
                }
            }
        };
    }
    out
}

fn push_text<'a>(out: &mut Vec<Token<'a>>, text: &'a str) {
    if !text.is_empty() {
        out.push(Token::Text(decode_entities(text)));
    }
}

/// What follows the first `marker` in `text` (nothing when it never comes).
fn after<'a>(text: &'a str, marker: &str) -> &'a str {
    text.find(marker).map_or("", |i| &text[i + marker.len()..])
}

/// `text` from the first case-insensitive occurrence of `marker` (nothing when it never comes).
fn skip_to_ci<'a>(text: &'a str, marker: &str) -> &'a str {
    let lower = text.to_ascii_lowercase();
    lower.find(marker).map_or("", |i| &text[i..])
}

fn tag_name(text: &str) -> (String, &str) {
    let end = text
        .find(|c: char| c.is_ascii_whitespace() || c == '>' || c == '/')
        .unwrap_or(text.len());
    (text[..end].to_ascii_lowercase(), &text[end..])
}

/// A start tag after its `<`, and what follows it; `None` when no tag name follows.
fn start_tag(text: &str) -> Option<(Token<'static>, &str)> {
    if !text.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let (name, mut rest) = tag_name(text);
    let mut attrs = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
        if rest.is_empty() || rest.starts_with('>') {
            let tail = rest.strip_prefix('>').unwrap_or(rest);
            return Some((Token::Start { name, attrs }, tail));
        }
        let key_end = rest
            .find(|c: char| c.is_ascii_whitespace() || matches!(c, '=' | '>' | '/'))
            .unwrap_or(rest.len());
        let key = rest[..key_end].to_ascii_lowercase();
        rest = rest[key_end..].trim_start();
        let value = match rest.strip_prefix('=') {
            Some(after_eq) => {
                let (value, tail) = attr_value(after_eq.trim_start());
                rest = tail;
                decode_entities(value).into_owned()
            }
            None => String::new(),
        };
        attrs.push((key, value));
    }
}

/// A quoted or bare attribute value and what follows it.
fn attr_value(text: &str) -> (&str, &str) {
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote) {
            return match inner.find(quote) {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => (inner, ""),
            };
        }
    }
    let end = text
        .find(|c: char| c.is_ascii_whitespace() || c == '>')
        .unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// Text with `&name;`, `&#N;` and `&#xH;` replaced; unknown entities are kept as written.
pub(crate) fn decode_entities(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('&') {
        return text.into();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        // Entity names are short: a `;` further on belongs to something else.
        let decoded = rest
            .bytes()
            .take(12)
            .position(|b| b == b';')
            .and_then(|semi| entity(&rest[1..semi]).map(|c| (c, semi + 1)));
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.into()
}

/// The character an entity name stands for: numeric ones, and the named ones result pages use.
fn entity(name: &str) -> Option<char> {
    if let Some(number) = name.strip_prefix('#') {
        let code = match number.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => number.parse().ok()?,
        };
        return char::from_u32(code).filter(|c| *c != '\0');
    }
    let c = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "ldquo" => '\u{201c}',
        "rdquo" => '\u{201d}',
        "lsquo" => '\u{2018}',
        "rsquo" => '\u{2019}',
        "laquo" => '\u{ab}',
        "raquo" => '\u{bb}',
        "hellip" => '\u{2026}',
        "mdash" => '\u{2014}',
        "ndash" => '\u{2013}',
        "middot" => '\u{b7}',
        "bull" => '\u{2022}',
        "copy" => '\u{a9}',
        "reg" => '\u{ae}',
        "trade" => '\u{2122}',
        "deg" => '\u{b0}',
        "times" => '\u{d7}',
        _ => return None,
    };
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(name: &str, attrs: &[(&str, &str)]) -> Token<'static> {
        Token::Start {
            name: name.into(),
            attrs: attrs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn tags_attributes_and_text_are_split() {
        let html = r#"<DIV Class="a b" data-x='1' hidden id=bare>Hi &amp; bye</div><br/>"#;
        assert_eq!(
            tokens(html),
            vec![
                start(
                    "div",
                    &[
                        ("class", "a b"),
                        ("data-x", "1"),
                        ("hidden", ""),
                        ("id", "bare")
                    ]
                ),
                Token::Text("Hi & bye".into()),
                Token::End { name: "div".into() },
                start("br", &[]),
            ]
        );
        assert!(tokens(html)[0].has_class("div", "b"));
        assert!(!tokens(html)[0].has_class("div", "c"));
        assert_eq!(tokens(html)[0].attr("id"), Some("bare"));
    }

    #[test]
    fn comments_doctypes_and_scripts_are_skipped() {
        let html = "<!DOCTYPE html><!-- <a> --><script>if (a<b) x='</a>'</SCRIPT>t";
        assert_eq!(
            tokens(html),
            vec![
                start("script", &[]),
                Token::End {
                    name: "script".into()
                },
                Token::Text("t".into()),
            ]
        );
    }

    #[test]
    fn entities_are_decoded_and_unknown_or_broken_ones_kept() {
        assert_eq!(
            decode_entities("&ldquo;x&rdquo; &#39;&#x41; &bogus; & &amp;é &amp"),
            "\u{201c}x\u{201d} 'A &bogus; & &é &amp"
        );
    }

    #[test]
    fn broken_markup_never_panics() {
        for html in [
            "<",
            "<a",
            "<a href=\"x",
            "</",
            "<!--",
            "a < b",
            "<é>",
            "&#xFFFFFFFF;",
        ] {
            let _ = tokens(html);
        }
        assert_eq!(
            tokens("a < b"),
            vec![
                Token::Text("a ".into()),
                Token::Text("<".into()),
                Token::Text(" b".into())
            ]
        );
    }
}

//! The fixture corpus: every case parsed whole, one character at a time, and in random chunks,
//! with the same calls, content and diagnostics each way.

use serde_json::Value;

use super::{Family, Parsed, StreamEvent, StreamParser, format_for, parse};
use crate::protocol::ToolSpec;

struct Case {
    family: &'static str,
    text: &'static str,
    calls: &'static [(&'static str, &'static str)],
    content: &'static str,
    diagnostics: usize,
}

const CASES: &[Case] = &[
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"filesystem\", \"args\": {\"operation\": \"read\", \"path\": \"a\"}}</TOOL_CALL>",
        calls: &[("filesystem", "{\"operation\": \"read\", \"path\": \"a\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "Let me check.\n<TOOL_CALL>{\"tool\": \"filesystem\", \"args\": {\"operation\": \"read\", \"path\": \"a\"}}</TOOL_CALL>",
        calls: &[("filesystem", "{\"operation\": \"read\", \"path\": \"a\"}")],
        content: "Let me check.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": 1}}</TOOL_CALL>\n<TOOL_CALL>{\"tool\": \"g\", \"args\": {\"b\": 2}}</TOOL_CALL>",
        calls: &[("f", "{\"a\":1}"), ("g", "{\"b\":2}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {}}",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": 1}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": \"unfin",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": \"{\\\"a\\\": 1}\"}</TOOL_CALL>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{'tool': 'f', 'args': {'a': True, 'b': None}}</TOOL_CALL>",
        calls: &[("f", "{\"a\":true,\"b\":null}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": 1,},}</TOOL_CALL>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</TOOL_CALL>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"function\": \"f\", \"parameters\": {\"a\": 1}}</TOOL_CALL>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>[{\"tool\": \"f\", \"args\": {}}, {\"tool\": \"g\", \"args\": {}}]</TOOL_CALL>",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>\n```json\n{\"tool\": \"f\", \"args\": {\"a\": 1}}\n```\n</TOOL_CALL>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "```json\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n```",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "Use `<TOOL_CALL>` tags to call tools.",
        calls: &[],
        content: "Use `<TOOL_CALL>` tags to call tools.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "```python\nprint('<TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL>')\n```",
        calls: &[],
        content: "```python\nprint('<TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL>')\n```",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "I will use a <TOOL_CALL> block next.",
        calls: &[],
        content: "I will use a <TOOL_CALL> block next.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<think>maybe <TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL></think>The answer is 4.",
        calls: &[],
        content: "The answer is 4.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<think>I need the file.</think>\n<TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": 1 \"b\": 2}}</TOOL_CALL>\n<TOOL_CALL>{\"tool\": \"g\", \"args\": {}}</TOOL_CALL>",
        calls: &[("g", "{}")],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"text\": \"h\\u00e9llo \\\"quoted\\\" \\n 😀 日本\"}}</TOOL_CALL>",
        calls: &[("f", "{\"text\":\"héllo \\\"quoted\\\" \\n 😀 日本\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"content\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}</TOOL_CALL>",
        calls: &[(
            "f",
            "{\"content\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}",
        )],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"code\": \"if (x) { return '</TOOL_CALL>'; }\"}}</TOOL_CALL>",
        calls: &[("f", "{\"code\":\"if (x) { return '</TOOL_CALL>'; }\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL>\nTOOL_RESULT: {\"success\": true, \"data\": \"made up\"}",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL>\nI'll wait for the result.",
        calls: &[("f", "{}")],
        content: "I'll wait for the result.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "The version is 1.2.3.",
        calls: &[],
        content: "The version is 1.2.3.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "```json\n{\"name\": \"demo\", \"version\": \"1.0.0\", \"dependencies\": {}}\n```",
        calls: &[],
        content: "```json\n{\"name\": \"demo\", \"version\": \"1.0.0\", \"dependencies\": {}}\n```",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "```json\n{\"name\": \"f\", \"description\": \"reads\", \"parameters\": {\"type\": \"object\"}}\n```",
        calls: &[],
        content: "```json\n{\"name\": \"f\", \"description\": \"reads\", \"parameters\": {\"type\": \"object\"}}\n```",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "",
        calls: &[],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "The answer follows.</think>Answer.",
        calls: &[],
        content: "Answer.",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"nope\", \"args\": {}}</TOOL_CALL>",
        calls: &[("nope", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CAL>{\"tool\": \"f\", \"args\": {}}</TOOL_CAL>",
        calls: &[],
        content: "<TOOL_CAL>{\"tool\": \"f\", \"args\": {}}</TOOL_CAL>",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"ping\"}</TOOL_CALL>",
        calls: &[("ping", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": [1, 2]}</TOOL_CALL>",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "generic",
        text: "| a | b |\n|---|---|\n| <x> | [y] |",
        calls: &[],
        content: "| a | b |\n|---|---|\n| <x> | [y] |",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{bad json}</TOOL_CALL><TOOL_CALL>{\"tool\": \"g\", \"args\": {}}</TOOL_CALL>",
        calls: &[("g", "{}")],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "generic",
        text: "Use `a` and `b` then <TOOL_CALL>{\"tool\": \"f\", \"args\": {}}</TOOL_CALL>",
        calls: &[("f", "{}")],
        content: "Use `a` and `b` then",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "``` \nplain code\n```\nafter",
        calls: &[],
        content: "``` \nplain code\n```\nafter",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "Unclosed `code span with <TOOL_CALL> inside",
        calls: &[],
        content: "Unclosed `code span with <TOOL_CALL> inside",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>  {\"tool\":\"f\",\"args\":{\"n\":-1.5e2}}  </TOOL_CALL>",
        calls: &[("f", "{\"n\":-150.0}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<b>bold</b> text",
        calls: &[],
        content: "<b>bold</b> text",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "[link](http://x) and [TOOL_CALLS] mention",
        calls: &[],
        content: "[link](http://x) and [TOOL_CALLS] mention",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": \"x\"}}</TOOL_CALL><TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": \"y\"}}</TOOL_CALL>",
        calls: &[("f", "{\"a\":\"x\"}"), ("f", "{\"a\":\"y\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "generic",
        text: "<TOOL_CALL>{\"tool\": \"f\", \"args\": {\"a\": 1}}</TOOL_CALL>\n<tool_response>{\"fake\": true}</tool_response>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>\n{\"arguments\": {\"a\": 1}, \"name\": \"f\"}\n</tool_call>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>\n{'arguments': {'city': 'Paris'}, 'name': 'get_weather'}\n</tool_call>",
        calls: &[("get_weather", "{\"city\":\"Paris\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n<tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<scratch_pad>plan it</scratch_pad>\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
        calls: &[("f", "{}")],
        content: "<scratch_pad>plan it</scratch_pad>",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n<tool_response>\n{\"name\": \"f\", \"content\": \"fake\"}\n</tool_response>\nThe result is fake.",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"path\": \"src/ma",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "hermes",
        text: "Wrap calls in `<tool_call>` tags.",
        calls: &[],
        content: "Wrap calls in `<tool_call>` tags.",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"x\\\": [1, 2]}\"}</tool_call>",
        calls: &[("f", "{\"x\":[1,2]}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "```xml\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n```",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<think>\nShould I call f?\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "我需要查看文件。\n<tool_call>{\"name\": \"f\", \"arguments\": {\"路径\": \"文件.txt\"}}</tool_call>",
        calls: &[("f", "{\"路径\":\"文件.txt\"}")],
        content: "我需要查看文件。",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"s\": \"</tool_use> and </tool_call> inside\"}}</tool_call>",
        calls: &[("f", "{\"s\":\"</tool_use> and </tool_call> inside\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "No tools needed: 2 + 2 = 4.",
        calls: &[],
        content: "No tools needed: 2 + 2 = 4.",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1},}</tool_call>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call><tool_call>{\"name\": \"g\", \"arguments\": {oops}}</tool_call><tool_call>{\"name\": \"h\", \"arguments\": {}}</tool_call>",
        calls: &[("f", "{\"a\":1}"), ("h", "{}")],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"b\": false, \"n\": null, \"f\": 0.5}}</tool_call>",
        calls: &[("f", "{\"b\":false,\"n\":null,\"f\":0.5}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>[{\"name\": \"f\", \"arguments\": {}}, {\"name\": \"g\", \"arguments\": {}}]</tool_call>",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "Text <tool_cal> not a tag",
        calls: &[],
        content: "Text <tool_cal> not a tag",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"id\": \"call_9\", \"name\": \"f\", \"arguments\": {}}</tool_call>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>\n```json\n{\"name\": \"f\", \"arguments\": {\"q\": \"x\"}}\n```\n</tool_call>",
        calls: &[("f", "{\"q\":\"x\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "```bash\necho '<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>'\n```",
        calls: &[],
        content: "```bash\necho '<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>'\n```",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"deep\": {\"a\": {\"b\": {\"c\": [1, {\"d\": \"}\"}]}}}}}</tool_call>",
        calls: &[("f", "{\"deep\":{\"a\":{\"b\":{\"c\":[1,{\"d\":\"}\"}]}}}}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call></tool_call>",
        calls: &[],
        content: "<tool_call></tool_call>",
        diagnostics: 0,
    },
    Case {
        family: "hermes",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call><|im_end|>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n</tool_call>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call>\n<function=run>\n<parameter=command>\necho 42\n</parameter>\n</function>\n</tool_call>",
        calls: &[("run", "{\"command\":\"echo 42\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call>\n<function=run>\n<parameter=command>\nls -la\n</parameter>\n<parameter=timeout_seconds>\n5\n</parameter>\n</function>\n</tool_call>",
        calls: &[("run", "{\"command\":\"ls -la\",\"timeout_seconds\":5}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call>\n<function=set>\n<parameter=flag>\ntrue\n</parameter>\n<parameter=opts>\n{\"a\": [1]}\n</parameter>\n<parameter=label>\n123\n</parameter>\n</function>\n</tool_call>",
        calls: &[(
            "set",
            "{\"flag\":true,\"opts\":{\"a\":[1]},\"label\":\"123\"}",
        )],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call><function=a>\n</function></tool_call>\n<tool_call><function=b>\n</function></tool_call>",
        calls: &[("a", "{}"), ("b", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<think>\n\n</think>\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "```json\n{\"name\": \"f\", \"arguments\": {\"path\": \"x\"}}\n```",
        calls: &[("f", "{\"path\":\"x\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call>\n<function=run>\n<parameter=command>\necho cut",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "qwen",
        text: "Checking the file first.\n\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
        calls: &[("f", "{}")],
        content: "Checking the file first.",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "thinking forced open, no opening tag</think>\n\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<think>draft: <tool_call>{\"name\": \"bad\", \"arguments\": {}}</tool_call></think>The answer is 42.",
        calls: &[],
        content: "The answer is 42.",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "Plain answer.",
        calls: &[],
        content: "Plain answer.",
        diagnostics: 0,
    },
    Case {
        family: "qwen",
        text: "<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": \"b\"}}</tool_call>\n<tool_call>\n<function=g>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>",
        calls: &[("f", "{\"a\":\"b\"}"), ("g", "{\"x\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"name\": \"f\", \"parameters\": {\"a\": 1}}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "<|python_tag|>{\"name\": \"f\", \"parameters\": {\"a\": 1}}<|eom_id|>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"type\": \"function\", \"name\": \"f\", \"parameters\": {\"a\": 1}}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"name\": \"f\", \"parameters\": {}}; {\"name\": \"g\", \"parameters\": {}}",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "[{\"name\": \"f\", \"parameters\": {}}, {\"name\": \"g\", \"parameters\": {}}]",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "[get_weather(city=\"SF\"), get_time(tz='PST')]",
        calls: &[
            ("get_weather", "{\"city\":\"SF\"}"),
            ("get_time", "{\"tz\":\"PST\"}"),
        ],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "<|python_start|>[f(a=1, b=[1, 2], c=None)]<|python_end|>",
        calls: &[("f", "{\"a\":1,\"b\":[1,2],\"c\":null}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"version\": \"1.0\", \"private\": true}",
        calls: &[],
        content: "{\"version\": \"1.0\", \"private\": true}",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "Use {x} here.",
        calls: &[],
        content: "Use {x} here.",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "[special delivery] is a phrase.",
        calls: &[],
        content: "[special delivery] is a phrase.",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"name\": \"f\", \"parameters\": {}}\nThat should do it.",
        calls: &[("f", "{}")],
        content: "That should do it.",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "<function=f>{\"a\": 1}</function>",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"name\": \"f\", \"parameters\": {\"path\": \"src/",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "llama3",
        text: "Here: {\"name\": \"f\", \"parameters\": {}}",
        calls: &[],
        content: "Here: {\"name\": \"f\", \"parameters\": {}}",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "The answer is 7.<|eot_id|>",
        calls: &[],
        content: "The answer is 7.",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "[f(a=1), g(b=\"x\")",
        calls: &[("f", "{\"a\":1}"), ("g", "{\"b\":\"x\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "<|python_tag|>brave_search.call(query=\"rust\")",
        calls: &[("brave_search", "{\"query\":\"rust\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "  \n {\"name\": \"f\", \"parameters\": {\"a\": \"b\"}}",
        calls: &[("f", "{\"a\":\"b\"}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "<|python_tag|>{\"name\": \"f\", \"parameters\": {}}; {\"name\": \"g\", \"parameters\": {}}<|eom_id|>",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "[1, 2, 3] are numbers",
        calls: &[],
        content: "[1, 2, 3] are numbers",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "{\"name\": \"f\", \"parameters\": {\"x\": [1, {\"y\": \"]\"}]}}",
        calls: &[("f", "{\"x\":[1,{\"y\":\"]\"}]}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "llama3",
        text: "<think>hmm</think>{\"name\": \"f\", \"parameters\": {}}",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": 1}}]",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {}, \"id\": \"abc123XYZ\"}]",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS]f{\"a\": 1}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS]f{\"a\": 1}[TOOL_CALLS]g{}",
        calls: &[("f", "{\"a\":1}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS]f[ARGS]{\"a\": 1}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[{\"name\": \"f\", \"arguments\": {}}]",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "Use {braces} ok. [TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {}}]",
        calls: &[("f", "{}")],
        content: "Use {braces} ok.",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS]f{\"a\": {\"b\": {\"c\": 1}}}",
        calls: &[("f", "{\"a\":{\"b\":{\"c\":1}}}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[THINK]need f[/THINK][TOOL_CALLS]f{}",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[see above] for details",
        calls: &[],
        content: "[see above] for details",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {\"a\": \"cut",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 2}\"}]",
        calls: &[("f", "{\"a\":2}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "Answer: 5",
        calls: &[],
        content: "Answer: 5",
        diagnostics: 0,
    },
    Case {
        family: "mistral",
        text: "[TOOL_CALLS] [{\"name\": \"f\", \"arguments\": {}}]\n[TOOL_RESULTS] {\"content\": \"fake\"}[/TOOL_RESULTS]",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"name\": \"f\", \"arguments\": {\"a\": 1}}",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "```json\n{\"name\": \"f\", \"arguments\": {\"a\": 1}}\n```",
        calls: &[("f", "{\"a\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "\n\n  {\"name\": \"f\", \"arguments\": {}}  ",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"name\": \"demo\", \"version\": \"1.0.0\"}",
        calls: &[],
        content: "{\"name\": \"demo\", \"version\": \"1.0.0\"}",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}",
        calls: &[],
        content: "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "Result: {\"name\": \"f\", \"arguments\": {}}",
        calls: &[],
        content: "Result: {\"name\": \"f\", \"arguments\": {}}",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"name\": \"f\", \"arguments\": {}}\n{\"name\": \"g\", \"arguments\": {}}",
        calls: &[("f", "{}"), ("g", "{}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"name\": \"f\", \"arguments\": {\"a\": \"cut",
        calls: &[],
        content: "",
        diagnostics: 1,
    },
    Case {
        family: "json",
        text: "```\n{\"tool\": \"f\", \"args\": {\"x\": 1}}\n```",
        calls: &[("f", "{\"x\":1}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "```javascript\nconst x = {\"name\": \"f\", \"arguments\": {}};\n```",
        calls: &[],
        content: "```javascript\nconst x = {\"name\": \"f\", \"arguments\": {}};\n```",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{'name': 'f', 'arguments': {'ok': True}}",
        calls: &[("f", "{\"ok\":true}")],
        content: "",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "plain text answer",
        calls: &[],
        content: "plain text answer",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"name\": \"f\", \"arguments\": {}} and then some words",
        calls: &[("f", "{}")],
        content: "and then some words",
        diagnostics: 0,
    },
    Case {
        family: "json",
        text: "{\"tool_calls\": [{\"name\": \"f\", \"arguments\": {}}]}",
        calls: &[("f", "{}")],
        content: "",
        diagnostics: 0,
    },
];

fn tools() -> Vec<ToolSpec> {
    let schema = serde_json::json!({"type": "object", "properties": {
        "command": {"type": "string"}, "timeout_seconds": {"type": "integer"},
        "flag": {"type": "boolean"}, "opts": {"type": "object"}, "label": {"type": "string"}}});
    ["run", "set"]
        .iter()
        .map(|name| ToolSpec {
            name: name.to_string(),
            description: String::new(),
            parameters: schema.clone(),
        })
        .collect()
}

fn check(case: &Case, parsed: &Parsed, how: &str) -> Option<String> {
    let want: Vec<(String, Value)> = case
        .calls
        .iter()
        .map(|(name, args)| {
            (
                name.to_string(),
                serde_json::from_str(args).unwrap_or(Value::Null),
            )
        })
        .collect();
    let got: Vec<(String, Value)> = parsed
        .calls
        .iter()
        .map(|c| (c.name.clone(), c.arguments.clone()))
        .collect();
    let ok = got == want
        && parsed.content.trim() == case.content
        && parsed.diagnostics.len() == case.diagnostics;
    (!ok).then(|| format!("[{}, {how}] {:?}\n  want calls {want:?} content {:?} diagnostics {}\n  got  calls {got:?} content {:?} diagnostics {:?}", case.family, case.text, case.content, case.diagnostics, parsed.content.trim(), parsed.diagnostics))
}

/// Feeds `text` cut at the given char boundaries; returns the shown text and the result.
fn stream(family: Family, text: &str, cuts: &[usize]) -> (String, Parsed) {
    let tools = tools();
    let format = format_for(family, &tools);
    let mut parser = StreamParser::new(format.as_ref());
    let mut shown = String::new();
    let mut take = |events: Vec<StreamEvent>| {
        for event in events {
            if let StreamEvent::Text(text) = event {
                shown.push_str(&text);
            }
        }
    };
    let mut last = 0;
    for &cut in cuts.iter().chain(std::iter::once(&text.len())) {
        if cut > last {
            take(parser.feed(&text[last..cut]));
            last = cut;
        }
    }
    let (events, parsed) = parser.finish();
    take(events);
    (shown, parsed)
}

fn boundaries(text: &str) -> Vec<usize> {
    text.char_indices().map(|(i, _)| i).skip(1).collect()
}

#[test]
fn the_corpus_has_enough_cases_for_every_family() {
    assert!(CASES.len() >= 120, "{} cases", CASES.len());
    for family in ["generic", "hermes", "qwen", "llama3", "mistral", "json"] {
        assert!(
            CASES.iter().filter(|c| c.family == family).count() >= 8,
            "{family}"
        );
    }
}

#[test]
fn every_case_parses_whole() {
    let tools = tools();
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|case| {
            let family = Family::parse(case.family)?;
            check(
                case,
                &parse(format_for(family, &tools).as_ref(), case.text),
                "whole",
            )
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
}

#[test]
fn every_case_parses_the_same_fed_one_character_at_a_time() {
    let tools = tools();
    let mut failures = Vec::new();
    for case in CASES {
        let Some(family) = Family::parse(case.family) else {
            continue;
        };
        let whole = parse(format_for(family, &tools).as_ref(), case.text);
        let (shown, parsed) = stream(family, case.text, &boundaries(case.text));
        if parsed != whole {
            failures.push(format!(
                "[{}] {:?}: stream {parsed:?} != whole {whole:?}",
                case.family, case.text
            ));
        }
        // Known, documented exceptions: a reply that starts mid-reasoning (only a `</think>`
        // tells), and end-of-turn tokens, are shown before they can be recognised.
        let exception = (case.text.contains("</think>") && !case.text.contains("<think>"))
            || case.text.contains("<|");
        if !whole.content.starts_with(&shown) && !exception {
            failures.push(format!(
                "[{}] {:?}: shown {shown:?} is not a prefix of the content {:?}",
                case.family, case.text, whole.content
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_case_parses_the_same_in_random_chunks() {
    let tools = tools();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut failures = Vec::new();
    for case in CASES {
        let Some(family) = Family::parse(case.family) else {
            continue;
        };
        let whole = parse(format_for(family, &tools).as_ref(), case.text);
        let all = boundaries(case.text);
        for _ in 0..20 {
            let cuts: Vec<usize> = all
                .iter()
                .copied()
                .filter(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed.is_multiple_of(5)
                })
                .collect();
            let (_, parsed) = stream(family, case.text, &cuts);
            if parsed != whole {
                failures.push(format!("[{}] {:?} cuts {cuts:?}", case.family, case.text));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

mod properties {
    use proptest::prelude::*;

    use super::super::{Family, StreamParser, format_for, parse};

    const FAMILIES: [Family; 6] = [
        Family::Generic,
        Family::Hermes,
        Family::Qwen,
        Family::Llama3,
        Family::Mistral,
        Family::Json,
    ];

    /// Text made of the pieces parsers care about, so random input reaches the tricky paths.
    fn model_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("<TOOL_CALL>".to_string()),
            Just("</TOOL_CALL>".to_string()),
            Just("<tool_call>".to_string()),
            Just("</tool_call>".to_string()),
            Just("[TOOL_CALLS]".to_string()),
            Just("<|python_tag|>".to_string()),
            Just("<think>".to_string()),
            Just("</think>".to_string()),
            Just("```".to_string()),
            Just("`".to_string()),
            Just("\n".to_string()),
            Just("<function=f>".to_string()),
            Just("<parameter=a>".to_string()),
            Just(r#"{"name": "f", "arguments": {"a": 1}}"#.to_string()),
            Just("{'tool': 'f', 'args': {".to_string()),
            Just("[f(a=1)".to_string()),
            "[{}\\[\\]\"'(),:;=a-z0-9 ]{0,8}",
            any::<String>(),
        ];
        prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn arbitrary_text_never_panics_and_streaming_matches_whole(text in model_text(), split in 0usize..64) {
            for family in FAMILIES {
                let format = format_for(family, &[]);
                let whole = parse(format.as_ref(), &text);
                let mut parser = StreamParser::new(format.as_ref());
                let mut last = 0;
                for (index, (at, _)) in text.char_indices().enumerate() {
                    if split > 0 && index % split == 0 && at > last {
                        parser.feed(&text[last..at]);
                        last = at;
                    }
                }
                parser.feed(&text[last..]);
                let (_, streamed) = parser.finish();
                prop_assert_eq!(streamed, whole);
            }
        }
    }
}

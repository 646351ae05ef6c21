"""``ToolYamlConfig`` rules (upstream §2.1, §2.2, §10): modes, required and forbidden keys, shortcut and
trailhead blocks, suffixes, parameters — each error one line with file:line:column and the key, and each
bad file failing alone."""

from __future__ import annotations

import re

import pytest
from trailblaze_yaml_tools.definitions import YamlToolDefinition

TOOLS_BODY = """
description: Wait a bit.
parameters: []
tools:
  - wait: {timeToWaitInSeconds: 0}
"""


def only_error(ws) -> str:  # type: ignore[no-untyped-def]
    assert len(ws.errors) == 1, ws.errors
    return ws.errors[0]


def test_tools_mode_file_loads_with_its_source_and_trailmap(write, load, tool) -> None:
    root = write(tool("demo_pause", "id: demo_pause\n" + TOOLS_BODY))
    ws = load(root)
    definition = ws.registry.get("demo_pause")
    assert isinstance(definition, YamlToolDefinition)
    assert definition.delegating and definition.is_recordable and definition.surface_to_llm
    assert definition.trailmap == "demo"
    assert str(definition.source.file).endswith("trailmaps/demo/tools/demo_pause.tool.yaml")
    assert definition.source.line == 1
    assert ws.errors == []


@pytest.mark.parametrize(("body", "expected"), [
    # exactly one of class / tools / script
    ("id: demo_x\nclass: trailblaze.builtin.tools:WaitTool\n" + TOOLS_BODY,
     r"demo_x\.tool\.yaml:6:1: 'tools': a tool has exactly one of class:, tools:, script:; this one has class and tools"),
    ("id: demo_x\ndescription: nothing\nparameters: []\n",
     r"demo_x\.tool\.yaml:1:1: 'id': a tool needs one of class: .*, tools: .* or script:"),
    # description / parameters / flags forbidden with class:
    ("id: demo_x\nclass: trailblaze.builtin.tools:WaitTool\ndescription: no\n",
     r":3:1: 'description': 'description' is not allowed with class: \(the class defines it\)"),
    ("id: demo_x\nclass: trailblaze.builtin.tools:WaitTool\nparameters: []\n",
     r":3:1: 'parameters': 'parameters' is not allowed with class:"),
    ("id: demo_x\nclass: trailblaze.builtin.tools:WaitTool\nsurface_to_llm: false\n",
     r":3:1: 'surface_to_llm': 'surface_to_llm' is not allowed with class:"),
    # description required (non-blank) and parameters required with tools:
    ("id: demo_x\nparameters: []\ntools: [{wait: {}}]\n", r":1:1: 'id': 'description' is required with tools:"),
    ("id: demo_x\ndescription: '  '\nparameters: []\ntools: [{wait: {}}]\n",
     r":2:1: 'description': 'description' is required with tools:"),
    ("id: demo_x\ndescription: d\ntools: [{wait: {}}]\n", r"'parameters' is required with tools: \(write 'parameters: \[\]'"),
    # id
    ("description: d\nparameters: []\ntools: [{wait: {}}]\n", r":1:1: a tool file needs an 'id'"),
    ("id: 'demo x!'\n" + TOOLS_BODY, r":1:1: 'id': tool id 'demo x!' is not a valid tool name"),
    ("id: demo_" + "a" * 70 + "\n" + TOOLS_BODY, r"at most 64 characters"),
    # unknown keys, with a hint for upstream's camelCase spellings
    ("id: demo_x\nsurfaceToLlm: false\n" + TOOLS_BODY, r":2:1: 'surfaceToLlm': unknown key 'surfaceToLlm' .*\(write 'surface_to_llm'\)"),
    ("id: demo_x\ndescripton: d\nparameters: []\ntools: []\n", r"unknown key 'descripton' .*did you mean 'description'"),
    # flags are booleans
    ("id: demo_x\nis_recordable: maybe\n" + TOOLS_BODY, r":2:1: 'is_recordable': 'is_recordable' must be true or false"),
    ("id: demo_x\nis_read_only: sure\n" + TOOLS_BODY, r":2:1: 'is_read_only': 'is_read_only' must be true or false"),
    ("id: demo_x\nisCore: true\n" + TOOLS_BODY, r":2:1: 'isCore': unknown key 'isCore' .*\(write 'is_core'\)"),
    # parameters
    ("id: demo_x\ndescription: d\nparameters:\n  - name: a-b\n    type: string\ntools: []\n",
     r":4:5: 'name': parameter name 'a-b' must match"),
    ("id: demo_x\ndescription: d\nparameters:\n  - name: 1a\n    type: string\ntools: []\n",
     r"parameter name '1a' must match"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: a, type: string}\n  - {name: a, type: integer}\ntools: []\n",
     r":5:6: 'name': parameter 'a' is declared twice"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: a, type: colour}\ntools: []\n",
     r"'type': unknown parameter type 'colour'"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: a}\ntools: []\n", r"parameter 'a' needs a 'type'"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: n, type: integer, default: lots}\ntools: []\n",
     r":4:30: 'default': parameter 'n': default must be an integer, got string 'lots'"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: a, type: string, optional: true}\ntools: []\n",
     r"unknown parameter key 'optional'"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: n, type: integer, maximum: lots}\ntools: []\n",
     r":4:30: 'maximum': 'maximum' must be a number, got 'lots'"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: s, type: string, pattern: '('}\ntools: []\n",
     r"'pattern': 'pattern' is not a valid regular expression"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: s, type: string, items: integer}\ntools: []\n",
     r"'items': 'items' applies to array parameters, and 's' is string"),
    ("id: demo_x\ndescription: d\nparameters:\n  - {name: n, type: integer, minimum: 1, default: 0}\ntools: []\n",
     r"'default': parameter 'n': default must be >= 1, got 0"),
])
def test_each_rule_names_file_line_column_and_key(write, load, tool, body: str, expected: str) -> None:
    ws = load(write(tool("demo_x", body)))
    assert "demo_x" not in ws.registry
    assert re.search(expected, only_error(ws)), only_error(ws)


def test_parameter_limits_are_described_and_enforced(write, load, tool) -> None:
    ws = load(write(tool("demo_rate", """
        id: demo_rate
        description: Rate it.
        parameters:
          - {name: stars, type: integer, minimum: 1, maximum: 5}
          - {name: code, type: string, required: false, maxLength: 3, pattern: '^[A-Z]+$'}
          - {name: ids, type: array, items: integer, required: false, maxItems: 2}
        tools:
          - wait: {timeToWaitInSeconds: 0}
        """)))
    assert ws.errors == []
    definition = ws.registry.get("demo_rate")
    assert definition is not None
    props = definition.parameters().json_schema(for_llm=True)["properties"]
    assert props["stars"] == {"type": "integer", "minimum": 1, "maximum": 5}
    assert props["code"] == {"type": "string", "maxLength": 3, "pattern": "^[A-Z]+$"}
    assert props["ids"] == {"type": "array", "items": {"type": "integer"}, "maxItems": 2}
    with pytest.raises(ValueError, match=r"tool 'demo_rate': argument 'stars' must be <= 5, got 9"):
        definition.prepare({"stars": 9})
    with pytest.raises(ValueError, match=r"argument 'ids\[0\]' must be an integer"):
        definition.prepare({"stars": 1, "ids": ["x"]})


def test_class_mode_imports_and_validates_the_class(write, load, tool, tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "pkgs" / "demo_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "tools.py").write_text(
        "from trailblaze import Tool, ToolResult\n"
        "class Hello(Tool):\n"
        "    '''Say hello.'''\n"
        "    name = 'demo_hello'\n"
        "    who: str\n"
        "    def execute(self, ctx):\n"
        "        return ToolResult.ok('hello ' + self.who)\n"
        "class Nameless(Tool):\n"
        "    '''No name.'''\n")
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    root = write({
        **tool("demo_hello", "id: demo_hello\nclass: demo_pkg.tools:Hello\n"),
        **tool("demo_dotted", "id: demo_hello2\nclass: demo_pkg.tools.Hello\n"),
        **tool("demo_missing", "id: demo_missing\nclass: demo_pkg.nowhere:Gone\n"),
        **tool("demo_nameless", "id: demo_nameless\nclass: demo_pkg.tools:Nameless\n"),
        **tool("demo_notool", "id: demo_notool\nclass: pathlib:Path\n"),
    })
    ws = load(root)
    hello = ws.registry.get("demo_hello")
    assert hello is not None and hello.kind == "class" and hello.trailmap == "demo"
    assert hello.description == "Say hello."
    errors = "\n".join(ws.errors)
    assert re.search(r"demo_dotted\.tool\.yaml:1:1: 'id': id 'demo_hello2' does not match the name of class", errors)
    assert re.search(r"demo_missing\.tool\.yaml:2:1: 'class': cannot import module 'demo_pkg.nowhere'", errors)
    assert "class 'demo_pkg.tools:Nameless' has no 'name' class attribute" in errors
    assert "'pathlib:Path' is not a trailblaze.Tool subclass" in errors
    session = ws.session()
    assert session.dispatcher.call(_call("demo_hello", {"who": "Ann"}), session.context()).message == "hello Ann"


def _call(name, args):  # type: ignore[no-untyped-def]
    from trailblaze.tools.base import ToolCall

    return ToolCall(name, args)


SHORTCUT = """
id: demo_dayToSearch
description: From the day view, open search.
shortcut:
  from: demo/android/day_view
  to: demo/android/search
parameters: []
tools:
  - wait: {timeToWaitInSeconds: 0}
"""


def test_shortcut_and_trailhead_blocks(write, load) -> None:
    target_manifest = "id: demo\ntarget:\n  display_name: Demo\n"
    root = write({
        "trails/config/trailmaps/demo/trailmap.yaml": target_manifest,
        "trails/config/trailmaps/demo/shortcuts/demo_dayToSearch.shortcut.yaml": SHORTCUT,
        "trails/config/trailmaps/demo/trailheads/demo_home.trailhead.yaml":
            "id: demo_home\ndescription: Start at home.\nparameters: []\ntrailhead:\n  to: demo/home\n"
            "tools:\n  - wait: {timeToWaitInSeconds: 0}\n",
        "trailheads/../trails/config/trailmaps/demo/trailheads/demo_any.trailhead.yaml":
            "id: demo_any\ndescription: Anywhere.\nparameters: []\ntrailhead: {dynamic: true}\ntools: []\n",
    })
    ws = load(root)
    assert ws.errors == []
    assert ws.registry.get("demo_dayToSearch").meta["shortcut"] == {
        "from": "demo/android/day_view", "to": "demo/android/search"}
    assert ws.registry.get("demo_home").meta["trailhead"] == {"to": "demo/home"}
    assert ws.registry.get("demo_any").meta["trailhead"] == {"dynamic": True}

    mcp = ws.codec.describe(ws.registry.get("demo_dayToSearch")).mcp()
    assert mcp["_meta"]["trailblaze/shortcut"]["to"] == "demo/android/search"


@pytest.mark.parametrize(("path", "body", "expected"), [
    ("tools/demo_s.tool.yaml", SHORTCUT.replace("demo_dayToSearch", "demo_s"),
     r"demo_s\.tool\.yaml:3:1: 'shortcut': a shortcut: block belongs in a \*\.shortcut\.yaml file"),
    ("shortcuts/demo_s.shortcut.yaml", TOOLS_BODY.replace("description", "id: demo_s\ndescription"),
     r"demo_s\.shortcut\.yaml:1:1: a \*\.shortcut\.yaml file needs a 'shortcut:' block"),
    ("trailheads/demo_t.trailhead.yaml", SHORTCUT.replace("demo_dayToSearch", "demo_t"),
     r"demo_t\.trailhead\.yaml:3:1: 'shortcut': a \*\.trailhead\.yaml file needs a 'trailhead:' block"),
    ("shortcuts/demo_s.shortcut.yaml", SHORTCUT.replace("demo/android/search", "search"),
     r":5:3: 'to': waypoint id 'search' must have two or more non-blank '/'-separated segments"),
    ("shortcuts/demo_s.shortcut.yaml", SHORTCUT.replace("demo/android/search", "demo//search"),
     r"waypoint id 'demo//search' must have two or more"),
    ("shortcuts/demo_s.shortcut.yaml", SHORTCUT.replace("demo/android/search", "/demo/search"),
     r"waypoint id '/demo/search'"),
    ("shortcuts/demo_s.shortcut.yaml", SHORTCUT.replace("  to: demo/android/search", "  variant: ' '\n  to: a/b"),
     r"'variant': 'variant' must be non-blank"),
    ("shortcuts/demo_s.shortcut.yaml", SHORTCUT.replace("  to: demo/android/search\n", ""),
     r"'shortcut': a waypoint id is required here"),
    ("shortcuts/demo_s.shortcut.yaml", SHORTCUT + "trailhead: {to: a/b}\n",
     r"'trailhead': a tool is a shortcut or a trailhead, not both"),
    ("trailheads/demo_t.trailhead.yaml", "id: demo_t\ndescription: d\nparameters: []\ntrailhead: {dynamic: true, to: a/b}\ntools: []\n",
     r"'to': a dynamic trailhead has no 'to' waypoint"),
    ("trailheads/demo_t.trailhead.yaml", "id: demo_t\ndescription: d\nparameters: []\ntrailhead: {dynamic: false}\ntools: []\n",
     r"a trailhead needs 'to: <waypoint>'"),
    ("shortcuts/notes.yaml", "hello: world\n", r"notes\.yaml: 'notes\.yaml' is not a tool file"),
])
def test_block_and_suffix_rules(write, load, path: str, body: str, expected: str) -> None:
    root = write({"trails/config/trailmaps/demo/trailmap.yaml": "id: demo\ntarget: {display_name: Demo}\n",
                  f"trails/config/trailmaps/demo/{path}": body})
    ws = load(root)
    assert re.search(expected, only_error(ws)), only_error(ws)


def test_trailheads_are_forbidden_in_library_trailmaps(write, load) -> None:
    root = write({"trails/config/trailmaps/lib/trailmap.yaml": "id: lib\n",
                  "trails/config/trailmaps/lib/trailheads/lib_home.trailhead.yaml":
                      "id: lib_home\ndescription: d\nparameters: []\ntrailhead: {to: lib/home}\ntools: []\n"})
    error = only_error(load(root))
    assert re.search(r"lib_home\.trailhead\.yaml:4:1: 'trailhead': trailmap 'lib' is a library trailmap", error)


def test_metadata_only_file_annotates_a_tool_registered_elsewhere(write, load) -> None:
    root = write({"trails/config/trailmaps/demo/trailmap.yaml": "id: demo\ntarget: {display_name: Demo}\n",
                  "trails/config/trailmaps/demo/trailheads/wait.trailhead.yaml": "id: wait\ntrailhead: {dynamic: true}\n",
                  "trails/config/trailmaps/demo/trailheads/ghost.trailhead.yaml": "id: ghost\ntrailhead: {dynamic: true}\n",
                  "trails/config/trailmaps/demo/trailheads/bad.trailhead.yaml":
                      "id: wait\ndescription: no\ntrailhead: {dynamic: true}\n"})
    ws = load(root)
    assert ws.registry.get("wait").meta["trailhead"] == {"dynamic": True}
    assert re.search(r"bad\.trailhead\.yaml:2:1: 'description': 'description' is not allowed in a metadata-only file",
                     only_error(ws))
    advisories = [f.message for f in ws.check().advisories if f.check == "ToolMetadata"]
    assert advisories == ["'ghost' has shortcut/trailhead metadata but no source registers a tool with that name; "
                          "run `trailblaze tools` to list the tools of this workspace and driver (not decided: MCP "
                          "tool servers were not started, so the tools they serve are not known yet)"]


def test_each_bad_file_fails_alone_and_siblings_load(write, load, tool) -> None:
    root = write({
        **tool("demo_good", "id: demo_good\n" + TOOLS_BODY),
        **tool("demo_syntax", "id: demo_syntax\ndescription: [unclosed\n"),
        **tool("demo_scalar", "id: demo_scalar\ndescription: d\nparameters: []\ntools:\n  - eraseText: 3\n"),
        **tool("demo_other", "id: demo_other\n" + TOOLS_BODY),
    })
    ws = load(root)
    assert {"demo_good", "demo_other"} <= set(ws.registry.names())
    assert len(ws.errors) == 2
    joined = "\n".join(ws.errors)
    assert re.search(r"demo_syntax\.tool\.yaml:\d+:\d+: invalid YAML", joined)
    assert re.search(r"demo_scalar\.tool\.yaml:5:5: 'eraseText': tool 'eraseText': expected a map of arguments, got "
                     r"int 3 \(write '- eraseText: \{\.\.\.\}'\)", joined)
    report = ws.check()
    assert len(report.errors) == 2 and not report.ok


def test_inline_and_ref_tools_in_trailblaze_yaml(write, load) -> None:
    root = write({
        "trails/config/trailblaze.yaml": """
            tools:
              - ref: extra/pause.tool.yaml
              - id: napLong
                description: Nap.
                parameters:
                  - {name: seconds, type: number, required: false, default: 0}
                tools:
                  - wait: {timeToWaitInSeconds: "{{params.seconds}}"}
              - id: broken
                class: x.y:Z
                description: no
              - {ref: extra/pause.tool.yaml, note: x}
            """,
        "trails/config/extra/pause.tool.yaml": "id: pause\n" + TOOLS_BODY,
    })
    ws = load(root)
    assert {"pause", "napLong"} <= set(ws.registry.names())
    assert ws.registry.get("napLong").trailmap is None
    joined = "\n".join(ws.errors)
    assert re.search(r"trailblaze\.yaml:11:5: 'description': 'description' is not allowed with class:", joined)
    assert re.search(r"trailblaze\.yaml:12:5: 'tools': a 'ref:' entry may not have other keys \(note\)", joined)


def test_a_parameter_declared_sensitive_takes_secrets(write, load, tool) -> None:
    body = ("id: demo_login\ndescription: Sign in.\nparameters:\n  - {name: user, type: string}\n"
            "  - {name: password, type: string, sensitive: true}\ntools:\n  - wait: {timeToWaitInSeconds: 0}\n")
    ws = load(write(tool("demo_login", body)))
    assert ws.errors == []
    schema = ws.registry.get("demo_login").parameters()
    assert [p.name for p in schema if p.sensitive] == ["password"]

    bad = load(write(tool("demo_login", body.replace("sensitive: true", "sensitive: yes please"))))
    assert re.search(r":5:\d+: 'sensitive': 'sensitive' must be true or false", only_error(bad)), bad.errors

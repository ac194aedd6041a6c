"""Every error trainstack can show is whole: no fix text ends mid-sentence, none is cut by the bound that
keeps an echoed value short (boundary.cut), and a missing key's fix quotes its field's first sentence whole.

The templates are found, not listed: every raise of a trainstack error class (found by walking the
package's exception classes) and every ConfigIssue built in components/ is read from the source and
rendered with a placeholder for each value; the messages pydantic's errors become (a missing key, an
unknown key) are rendered for every field of every config model.
"""

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import pytest
import trainstack
from trainstack.boundary import SHOWN_MAX
from trainstack.config import ConfigModel, StackConfig
from trainstack.config import errors as config_errors

COMPONENTS = Path(trainstack.__file__).parent
PLACEHOLDER = "X"
CUT_MARK = re.compile(r"more characters\)")
CUT_ABBREVIATION = re.compile(r"\b(e\.g|i\.e)(?!\.)")
DANGLING = re.compile(r"(,|:|\(|\b(and|or|the|a|an|to|of|such as))\s*$")
SENTENCE_END = re.compile(r"[.?!][)'\"`]*$")


def _modules():
    for info in pkgutil.walk_packages(trainstack.__path__, "trainstack."):
        if ".package." not in info.name and not info.name.endswith("__main__"):
            importlib.import_module(info.name)


def _error_classes() -> set[str]:
    _modules()
    found, todo = set(), [Exception]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("trainstack"):
                found.add(sub.__name__)
    return found


def _template(node: ast.AST, texts: dict[str, ast.AST]) -> str | None:
    """The text a string expression makes, each interpolated value a placeholder (a module's own text constant
    read as written); None if it is not one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in texts:
        return _template(texts[node.id], texts)
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else
                       (_template(part.value, texts) or PLACEHOLDER) if isinstance(part.value, ast.Name) and
                       part.value.id in texts else PLACEHOLDER for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _template(node.left, texts), _template(node.right, texts)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.IfExp):
        return _template(node.body, texts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "cut":
        return PLACEHOLDER  # a value, bounded where it is echoed
    return None


def _raised_templates() -> list[tuple[str, str, str]]:
    """(where, kind, text) for the message and fix of every error raised or issue built in components/."""
    classes = _error_classes() | {"ConfigIssue", "issue"}
    found = []
    for path in sorted(COMPONENTS.rglob("*.py")):
        tree = ast.parse(path.read_text())
        texts = {target.id: statement.value for statement in tree.body if isinstance(statement, ast.Assign)
                 for target in statement.targets if isinstance(target, ast.Name)}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
            if name not in classes:
                continue
            where = f"{path.relative_to(COMPONENTS)}:{node.lineno}"
            parts: dict[str, ast.AST] = {}
            parts.update((kw.arg, kw.value) for kw in node.keywords if kw.arg == "fix")
            if name in ("ConfigIssue", "issue") and len(node.args) == 4:
                parts = {"message": node.args[2], "fix": node.args[3]}
            elif node.args:
                parts["message"] = node.args[0]
            for kind, expression in parts.items():
                text = _template(expression, texts)
                if text is not None:
                    found.append((where, kind, text))
    return found


RAISED = _raised_templates()


def _models() -> list[type[ConfigModel]]:
    found, todo = [], [ConfigModel]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            found.append(sub)
    return found


def _pydantic_issues():
    """The missing-key and unknown-key issue of every field of every config model."""
    for model in _models():
        for name, field in model.model_fields.items():
            key = field.alias or name
            missing = {"type": "missing", "loc": (key,), "msg": "Field required", "input": {}}
            yield f"{model.__name__}.{key} missing", config_errors._issue(missing, model, "trainstack")
        unknown = {"type": "extra_forbidden", "loc": ("zzz",), "msg": "Extra inputs are not permitted", "input": 1}
        yield f"{model.__name__} unknown key", config_errors._issue(unknown, model, "trainstack")


def whole(text: str) -> list[str]:
    """What makes ``text`` not whole (empty when it is)."""
    problems = []
    if CUT_MARK.search(text):
        problems.append("cut by boundary.cut")
    if CUT_ABBREVIATION.search(text):
        problems.append("an abbreviation cut at its dot (e.g)")
    if DANGLING.search(text):
        problems.append("ends on a word that begins more")
    for opening, closing in ("()", "[]"):
        if text.count(opening) != text.count(closing):
            problems.append(f"unbalanced {opening}")
    return problems


def test_the_templates_were_found():
    # Every kind of error is among them: config validators, files, launchers, records, the catalog.
    places = {where.split(":")[0].split("/")[0] for where, _, _ in RAISED}
    assert {"config", "boundary.py", "launch", "plan", "review", "outputs.py"} <= places, places
    assert len([t for t in RAISED if t[1] == "fix"]) > 90


@pytest.mark.parametrize("where,kind,text", RAISED, ids=[f"{w} {k}" for w, k, _ in RAISED])
def test_every_raised_message_and_fix_is_whole(where, kind, text):
    assert not whole(text), (where, text)
    if kind == "fix":
        assert SENTENCE_END.search(text), f"{where}: the fix does not end a sentence: {text!r}"


def test_every_missing_or_unknown_key_fix_is_whole_and_rendered_uncut():
    for label, found in _pydantic_issues():
        assert not whole(found.fix) and SENTENCE_END.search(found.fix), (label, found.fix)
        assert found.fix in found.render(), label


def test_a_missing_region_quotes_its_docstring_whole():
    # The old first-sentence rule split at "e.g. " and printed "(AWS region of every resource in the stack, e.g)."
    (region,) = [issue for label, issue in _pydantic_issues() if label == "StackConfig.region missing"]
    assert region.fix == "add 'region' (AWS region of every resource in the stack, e.g. us-east-1)."


def test_the_longest_fixes_a_stack_can_get_are_shown_whole():
    # The fixes that list what the data holds are the longest: every region, every key of the largest model.
    from trainstack.config import ConfigError, validate_stack_config

    with pytest.raises(ConfigError) as raised:
        validate_stack_config({"profile": "dev", "region": "us-east-9",
                               "network": {"zones": ["us-east-9a", "us-east-9b"]}})
    (issue,) = raised.value.issues
    assert issue.fix in issue.render() and issue.fix.endswith("us-west-2.")
    assert len(issue.fix) > SHOWN_MAX  # so an echoed value's bound would have cut it


def test_stack_config_is_among_the_models_walked():
    assert StackConfig in _models()

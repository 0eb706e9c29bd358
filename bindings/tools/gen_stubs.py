"""Writes a typed stub (.pyi) for a uniffi-generated Python module.

The generated module carries type annotations, but in a shape mypy --strict
cannot use: enum variants become subclasses only at run time, error variants
are attached after the class body, and constructors lack ``-> None``. This
tool imports the module (so the native library must sit beside it) and
writes the same API as a stub mypy understands. It is generated, never
edited, so it cannot drift from the bindings.

Usage: python gen_stubs.py DIR_WITH_MODULE MODULE_NAME OUT.pyi
"""
from __future__ import annotations

import enum
import importlib.util
import inspect
import sys
import types
from pathlib import Path
from typing import Any, Callable, List

INDENT = "    "


def load(directory: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, directory / f"{name}.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {name} from {directory}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def annotation(value: Any) -> str:
    """Annotations are strings (the module uses postponed evaluation)."""
    if value is inspect.Parameter.empty:
        return "typing.Any"
    if isinstance(value, str):
        return value
    return getattr(value, "__name__", repr(value))


def params(function: Callable[..., Any], first: str) -> str:
    signature = inspect.signature(function)
    out: List[str] = [first] if first else []
    keyword_only_started = False
    for parameter in signature.parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY and not keyword_only_started:
            out.append("*")
            keyword_only_started = True
        text = f"{parameter.name}: {annotation(parameter.annotation)}"
        if parameter.default is not inspect.Parameter.empty:
            text += " = ..."
        out.append(text)
    return ", ".join(out)


def returns(function: Callable[..., Any]) -> str:
    value = inspect.signature(function).return_annotation
    return "None" if value is inspect.Signature.empty else annotation(value)


def doc_line(obj: Any, indent: str) -> List[str]:
    doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else inspect.getdoc(obj)
    if not doc:
        return []
    first = doc.strip().splitlines()[0].replace('"""', "'''")
    return [f'{indent}"""{first}"""']


def own_functions(cls: type) -> List[tuple[str, Any]]:
    return [
        (name, value)
        for name, value in cls.__dict__.items()
        if (not name.startswith("_") or name in ("__init__", "__str__", "__repr__", "__eq__"))
        and (inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod)))
    ]


def variants_of(cls: type) -> List[tuple[str, type]]:
    return [
        (name, value)
        for name, value in cls.__dict__.items()
        if inspect.isclass(value) and value is not cls and issubclass(value, cls)
    ]


def record_fields(init: Callable[..., Any]) -> List[str]:
    return [
        f"{p.name}: {annotation(p.annotation)}"
        for p in inspect.signature(init).parameters.values()
        if p.name != "self"
    ]


def methods(cls: type, indent: str, skip_init: bool = False) -> List[str]:
    lines: List[str] = []
    for name, value in own_functions(cls):
        if name == "__init__":
            if skip_init:
                continue
            lines.append(f"{indent}def __init__({params(value, 'self')}) -> None: ...")
        elif name == "__eq__":
            lines.append(f"{indent}def __eq__(self, other: object) -> bool: ...")
        elif name in ("__str__", "__repr__"):
            lines.append(f"{indent}def {name}(self) -> str: ...")
        elif isinstance(value, classmethod):
            function = value.__func__
            lines.append(f"{indent}@classmethod")
            lines.append(f"{indent}def {name}({params(function, 'cls')}) -> {returns(function)}: ...")
        elif isinstance(value, staticmethod):
            function = value.__func__
            lines.append(f"{indent}@staticmethod")
            lines.append(f"{indent}def {name}({params(function, '')}) -> {returns(function)}: ...")
        else:
            lines.append(f"{indent}def {name}({params(value, 'self')}) -> {returns(value)}: ...")
    return lines


def stub_class(name: str, cls: type) -> List[str]:
    lines: List[str] = []
    if issubclass(cls, enum.Enum):
        lines.append(f"class {name}(enum.Enum):")
        lines += doc_line(cls, INDENT)
        for member in cls:
            lines.append(f"{INDENT}{member.name} = {member.value!r}")
        return lines
    if issubclass(cls, BaseException):
        lines.append(f"class {name}(Exception):")
        lines += doc_line(cls, INDENT)
        for variant_name, variant in variants_of(cls):
            lines.append(f"{INDENT}class {variant_name}({name}):")
            lines += doc_line(variant, INDENT * 2)
            if "__init__" in variant.__dict__:
                init = variant.__dict__["__init__"]
                fields = record_fields(init)
                lines += [f"{INDENT * 2}{field}" for field in fields]
                lines.append(f"{INDENT * 2}def __init__({params(init, 'self')}) -> None: ...")
            lines.append(f"{INDENT * 2}...")
        if len(lines) == 1:
            lines.append(f"{INDENT}...")
        return lines
    bases = "typing.Protocol" if typing_protocol(cls) else ""
    lines.append(f"class {name}({bases}):" if bases else f"class {name}:")
    lines += doc_line(cls, INDENT)
    variants = variants_of(cls)
    if variants:
        # A tagged union: each variant is a nested subclass.
        for variant_name, variant in variants:
            lines.append(f"{INDENT}class {variant_name}({name}):")
            lines += doc_line(variant, INDENT * 2)
            init = next(
                (c.__dict__["__init__"] for c in variant.__mro__ if "__init__" in c.__dict__),
                None,
            )
            if init is not None:
                lines += [f"{INDENT * 2}{field}" for field in record_fields(init)]
                lines.append(f"{INDENT * 2}def __init__({params(init, 'self')}) -> None: ...")
            lines.append(f"{INDENT * 2}def __eq__(self, other: object) -> bool: ...")
        lines += methods(cls, INDENT, skip_init=True)
        return lines
    init = cls.__dict__.get("__init__")
    if init is not None and hasattr(cls, "__dataclass_fields__"):
        # A record: keyword-only constructor, one attribute per field.
        lines += [f"{INDENT}{field}" for field in record_fields(init)]
    body = methods(cls, INDENT)
    lines += body
    if not body and len(lines) == 1 + len(doc_line(cls, INDENT)):
        lines.append(f"{INDENT}...")
    return lines


def typing_protocol(cls: type) -> bool:
    return bool(getattr(cls, "_is_protocol", False))


def main() -> None:
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    directory, name, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
    module = load(directory, name)
    lines = [
        f"# Generated by bindings/tools/gen_stubs.py from {name}.py; do not edit.",
        "from __future__ import annotations",
        "import enum",
        "import typing",
        "",
    ]
    names: List[str] = list(getattr(module, "__all__"))
    for item in names:
        value = getattr(module, item)
        if inspect.isclass(value):
            lines += stub_class(item, value)
        elif inspect.isfunction(value):
            lines.append(f"def {item}({params(value, '')}) -> {returns(value)}: ...")
        lines.append("")
    lines.append("__all__ = [")
    lines += [f'{INDENT}"{item}",' for item in names]
    lines.append("]")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

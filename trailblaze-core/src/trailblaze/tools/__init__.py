"""The tool model. Import from here: ``from trailblaze.tools import Tool, ToolResult``."""

from __future__ import annotations

from .base import (ANNOTATION_KEYS, ClassToolDefinition, DelegatingTool, OtherTool, Tool, ToolCall,
                   ToolDefinition, ToolResult, ToolSource)
from .codec import ToolCodec
from .descriptors import ToolDescriptor, default_descriptor, describe  # describe: deprecated, not in __all__
from .params import ParameterDefinition, ParameterSchema, ParamType
from .registry import ToolRegistry

__all__ = [
    "ANNOTATION_KEYS", "ClassToolDefinition", "DelegatingTool", "OtherTool", "ParamType",
    "ParameterDefinition", "ParameterSchema", "Tool", "ToolCall", "ToolCodec", "ToolDefinition",
    "ToolDescriptor", "ToolRegistry", "ToolResult", "ToolSource", "default_descriptor",
]

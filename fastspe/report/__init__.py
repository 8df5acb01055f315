"""The paper's tables and figures, the report folder and page, labels, trajectories and run statistics."""

from typing import TYPE_CHECKING

from .._names import face_dir, lazy_face

if TYPE_CHECKING:  # what type checkers and IDEs see: the objects __getattr__ hands out on first use
    from .comparison import summary_markdown
    from .figures import figure1_heatmap, figure2_bars, figure3_trajectories, figure_trend
    from .labels import Labels, read_labels
    from .protocol_effect import tool_effect_markdown, tool_effect_table
    from .render import to_latex, to_markdown, write_table_files
    from .run_stats import run_stats_table
    from .tables import paper_tables, Table
    from .trajectories import trajectory_frame
    from .write import ReportOptions, write_report

_NAMES = {
    "ReportOptions": "write",
    "write_report": "write",
    "Table": "tables",
    "paper_tables": "tables",
    "to_markdown": "render",
    "to_latex": "render",
    "write_table_files": "render",
    "figure1_heatmap": "figures",
    "figure2_bars": "figures",
    "figure3_trajectories": "figures",
    "figure_trend": "figures",
    "Labels": "labels",
    "read_labels": "labels",
    "trajectory_frame": "trajectories",
    "run_stats_table": "run_stats",
    "summary_markdown": "comparison",
    "tool_effect_table": "protocol_effect",
    "tool_effect_markdown": "protocol_effect",
}
__all__ = [
    "figure1_heatmap",
    "figure2_bars",
    "figure3_trajectories",
    "figure_trend",
    "Labels",
    "paper_tables",
    "read_labels",
    "ReportOptions",
    "run_stats_table",
    "summary_markdown",
    "Table",
    "to_latex",
    "to_markdown",
    "tool_effect_markdown",
    "tool_effect_table",
    "trajectory_frame",
    "write_report",
    "write_table_files",
]
__dir__ = face_dir(__all__)
if not TYPE_CHECKING:  # hidden from type checkers, which then refuse a name the face does not have
    __getattr__ = lazy_face(__name__, _NAMES)

"""The paper's tables and figures, the report folder and page, labels, trajectories and run statistics.
"""

from .._names import lazy_face

_NAMES = {
    "ReportOptions": "write", "report_folder": "write", "metrics_long": "write", "display_names": "write",
    "write_report": "write", "Table": "tables", "paper_tables": "tables", "condition_order": "tables",
    "primary_cohort": "tables", "check_table_inputs": "tables", "trajectory_table": "tables",
    "to_markdown": "render", "to_latex": "render", "write_table_files": "render", "markdown_text": "render",
    "latex_escape": "render", "caption_text": "render", "heading_text": "render", "markdown_rows": "render",
    "caption_markdown": "render", "caption_latex": "render", "header_latex": "render", "method_text": "page",
    "md_section": "page", "html_table": "page", "pages": "page", "plain": "figures", "wrapped": "figures",
    "heat_scale": "figures", "heatmap_columns": "figures", "heatmap_figure": "figures", "figure1_heatmap": "figures",
    "bars_figure": "figures", "figure2_bars": "figures", "trajectory_figure": "figures",
    "figure3_trajectories": "figures", "trend_figure": "figures", "figure_trend": "figures", "Labels": "labels",
    "read_labels": "labels", "trajectory_frame": "trajectories", "COLUMNS": "run_stats", "run_stats_table": "run_stats",
    "summary_markdown": "comparison", "tool_effect_table": "protocol_effect",
    "tool_effect_markdown": "protocol_effect",
}
__all__ = sorted(_NAMES)
__getattr__ = lazy_face(__name__, _NAMES)

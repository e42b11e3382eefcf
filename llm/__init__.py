"""LLM access (none / sampling / litellm) and the work a model does: consolidation, questions, TOC navigation."""

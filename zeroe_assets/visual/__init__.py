"""The runtime behind the visual attack: the exported look-alike space (numpy; FAISS on demand)."""
from .space import (COMPONENT, INVISIBLE_LETTERS, VisualSpace, is_candidate, load_visual,
                    neighbours)

__all__ = ["COMPONENT", "INVISIBLE_LETTERS", "VisualSpace", "is_candidate", "load_visual",
           "neighbours"]

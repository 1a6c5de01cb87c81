"""Targeted search attacks in TextAttack's four parts (Morris et al. 2020): a transformation
(Zéroe's perturbers and character operations, through their candidates per word), constraints
(:mod:`zeroe_assets.constraints`), a goal function built from a task, and a search method;
every victim query is batched and counted. Records and the defender benchmark's metrics are in
:mod:`.results`.
"""
from .attack import SearchAttack
from .charmer import Charmer
from .goals import Classification, Goal, Outcome, Session, Tagging, goal_for
from .guided import Guided, NgramSurrogate
from .methods import Beam, Greedy, Problem, RandomProtocol, SearchMethod
from .recipes import get_recipe, recipe_names
from .results import AttackResult, summarize
from .text import AttackedText, Edit
from .transformations import (AnyCharacter, CharEdit, PerturberSwap, Transformation, Union,
                              get_transformation, get_transformations, transformation_names)

__all__ = ["AnyCharacter", "AttackResult", "AttackedText", "Beam", "CharEdit", "Charmer",
           "Classification", "Edit", "Goal", "Greedy", "Guided", "NgramSurrogate", "Outcome",
           "PerturberSwap", "Problem", "RandomProtocol", "SearchAttack", "SearchMethod", "Session", "Tagging",
           "Transformation", "Union", "get_recipe", "get_transformation", "get_transformations",
           "goal_for", "recipe_names", "summarize", "transformation_names"]

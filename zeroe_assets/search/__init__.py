"""Targeted search attacks in TextAttack's four parts (Morris et al. 2020): a transformation
(Zéroe's perturbers and character operations, through their candidates per word), constraints
(:mod:`zeroe_assets.constraints`), a goal function built from a task, and a search method;
every victim query is batched and counted. Records and the defender benchmark's metrics are in
:mod:`.results`.
"""

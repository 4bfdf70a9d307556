"""Changing a model: hooks, head gates and pruning, compression, distillation, layer duplication.

==================  ===============================================================================
module              holds
==================  ===============================================================================
``hooks``           the blocks of a model, editing a layer's output, projecting a subspace out
``heads``           head gates (a (n_layers, n_heads) float mask, 1 = keep), importance, pruning
``compression``     dropping blocks, int8 quantisation, magnitude pruning, lottery tickets
``distill``         task-specific distillation into a shallower student of the teacher's own blocks
``duplication``     duplicating blocks (Kao et al. 2020), as a model or a model source
==================  ===============================================================================

Every intervention returns a changed copy or works inside a context manager that undoes it.
"""

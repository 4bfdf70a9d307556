"""A Primer in BERTology (Rogers, Kovaleva & Rumshisky 2020), section by section.

====================  =============================================================================
module                used by
====================  =============================================================================
``architecture``      §2 BERT's architecture in numbers
``sizes``             §3–§4 the notebooks' shared sizes per profile (:class:`~.sizes.SurveySizes`)
``knowledge``         §3.1–§3.3 what BERT knows: suite tables, name swaps, facts
``semantics``         §3.2 against baselines: frequency and twin baselines, name swaps with number, numeracy
``world_knowledge``   §3.3 against baselines: Petroni's frequency baseline, a KB read off the corpus
``location``          §4.1 embeddings against the random-init twin: geometry, held-out senses and pooling
``english``           §3–§4 on the English lab BERT: sizes, agreement items and Brown probe sentences
``syntax``            §3.1 auxiliary-verb probes (main vs embedded clause) against a linear baseline
``perturbed``         §3.1 perturbed masking on UD English EWT trees (Wu et al.), model against its twin
``trainings``         §3.1 headline rows over three trainings: intervals over trainings and items
``probing_limits``    §3.4 control tasks, MDL, amnesic probing
``training``          §5 fine-tuning strategies, what fine-tuning changes, seed variance
``pretraining``       §5 lab BERTs: masking, stacking, depth vs heads, objectives
``lab_jobs``          §5 lab BERTs as units that ``bertology build --jobs N`` trains side by side
``model_size``        §6 compression: teachers, retraining methods, the compression table
``behaviour``         §7 behavioural tests (CheckList) and the overlap heuristic (HANS)
====================  =============================================================================
"""

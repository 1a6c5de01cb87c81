"""``python -m train.defend [experiment=NAME] [key=value ...]``: the attack in the loop for the
neural victims.

Fine-tunes a sequence classifier (MiniLM by default; ``train.victim``'s module and data module)
for a text or pair task, optionally behind the runtime's robust encoding (``defense.parts``:
``zeroe_assets.defend``), in ``defense.rounds + 1`` stages of ``defense.epochs_per_round``
epochs. Before each stage after the first, the model as it stands is wrapped as an in-memory
victim behind the same defense (`DefendedVictim`), a search recipe (``defense.recipe``) attacks
``defense.per_round`` seeded training examples through that whole pipeline
(``zeroe_assets.defend.build.attacked``, what ``zeroe defend --rounds`` runs), and the successful
adversarial inputs join the training data with their gold labels. Each round's finds are kept in
``RUN/adversarial/roundK.jsonl``: a resumed run reads them instead of attacking again.

One Lightning fit covers every round (``last.ckpt`` at each epoch end; ``trainer.max_time`` counts
the whole run, attacks included). Rerunning the same run folder resumes it from its ``last.ckpt``
(``resume=true``; or ``ckpt_path=`` one); each step's dropout is seeded by ``seed`` and the step,
so a run resumed from an epoch end ends on the same weights as one never interrupted. The result is
a defended victim's folder, ``defended_dir`` (``RUN/defended``: ``defense.json``,
``vocabulary.txt``, the ``hf:`` model in ``hf/``), which every command loads as ``--victim
defended:DIR``.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import hydra
import pytorch_lightning as pl
import torch
from hydra.utils import instantiate
from omegaconf import DictConfig, OmegaConf

from train import CONF, one_line_errors
from train.distributed import fit_trainer
from train.victim.texts import TextsDataModule
from zeroe_assets.assets.store import atomic_write, library_versions, sha256_file
from zeroe_assets.defend.build import (RECIPE, attacked, check_shield_guess, parse_parts,
                                       pipeline)
from zeroe_assets.defend.victim import (HF, DefendedVictim, load_defended, save_defense,
                                        shield_fields)
from zeroe_assets.tasks import Examples

ROUNDS = "adversarial"  # RUN/adversarial/roundK.jsonl: what round K's attack found


class StepSeed(pl.Callback):
    """Seeds torch before each training step with ``seed`` and the step, so dropout draws the
    same masks whether the run went straight through or was resumed from a checkpoint (a resume
    at an epoch end skips ``on_train_epoch_start``: no per-epoch seed would hold)."""

    def __init__(self, seed: int):
        self.seed = seed

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        torch.manual_seed(self.seed * 1_000_003 + trainer.global_step)


class DefendDataModule(TextsDataModule):
    """`TextsDataModule` whose inputs go through the defense (``defense.parts`` without
    ``adversarial``: encode, shield) before they are tokenized, and whose training data grows by
    one round of adversarial examples every ``epochs_per_round`` epochs (the trainer reloads the
    training loader each epoch). The vocabulary of the encoding is the training split's."""

    def __init__(self, *args, defense: dict, run_dir: str, progress: bool = True,
                 limit_train: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.limit_train = limit_train  # a seeded sample of the training split (bounded runs)
        d = dict(defense)
        self.parts = parse_parts(d.get("parts", "encode,adversarial"))
        self.rounds = int(d.get("rounds", 0)) if "adversarial" in self.parts else 0
        self.per_round, self.recipe = int(d.get("per_round", 100)), str(d.get("recipe") or RECIPE)
        self.epochs_per_round = int(d.get("epochs_per_round", 1))
        if self.rounds < 0 or self.per_round < 1 or self.epochs_per_round < 1:
            raise ValueError("defense.rounds must be >= 0, defense.per_round and "
                             "defense.epochs_per_round >= 1")
        self.options = {k: d[k] for k in ("min_count", "anagrams", "sources", "merge_below",
                                          "restore") if k in d}
        self.options["shield_guess"] = check_shield_guess(self.parts, d.get("shield_guess", False))
        self.anchors = bool(d.get("anchors", True))  # a pair's hypothesis read against its premise
        self.rounds_dir, self.progress = Path(run_dir) / ROUNDS, progress
        self.found: dict[int, list] = {}  # round → [(input, gold)], read or attacked
        self.defense = None

    def _hold_out(self, examples: Examples) -> tuple[Examples, Examples]:
        """The held-out validation split, then (``limit_train``) a seeded sample of the rest."""
        train, val = super()._hold_out(examples)
        if self.limit_train and self.limit_train < len(train.gold):
            import random

            keep = sorted(random.Random(self.seed).sample(range(len(train.gold)),
                                                          self.limit_train))
            train = Examples(*([part[i] for i in keep] for part in
                               (train.inputs, train.gold, train.texts)))
        return train, val

    # --- the defense in front of the model ---------------------------------------------------
    def _build_defense(self) -> None:
        train = self.examples["train"]
        pairs = self.task.inputs == "pair"
        texts = [t for item in train.inputs for t in (item if pairs else (item,))]
        self.counts, self.clusters, encoder, shield = pipeline(self.parts, texts, **self.options)
        self.defense = DefendedVictim(None, self.task.name, encoder, shield,
                                      anchored=self.anchors)

    def _encode(self, examples: Examples) -> list[tuple[dict, int]]:
        if self.defense is None:
            self._build_defense()
        if not examples.inputs:  # a round that found nothing
            return []
        seen = Examples(list(self.defense.seen(examples.inputs)), examples.gold, examples.texts)
        return super()._encode(seen)

    def victim(self, net) -> DefendedVictim:
        """``net`` as it stands, behind the defense: what the attack in the loop queries (the
        hf victim puts ``net`` in eval mode; the caller puts it back)."""
        from zeroe_assets.victims.hf import hf_victim

        device = str(next(net.parameters()).device)
        model = hf_victim(net, self.tokenizer, self.task.name, self.eval_batch_size, device,
                          self.labels[1] if self.task.name == "tc" else None)
        return DefendedVictim(model, self.task.name, self.defense.encoder, self.defense.shield,
                              anchored=self.anchors)

    # --- the rounds --------------------------------------------------------------------------
    def planned_epochs(self) -> int:
        return (self.rounds + 1) * self.epochs_per_round

    def planned_steps(self) -> int:
        """Training steps of the whole plan if every attack succeeded (the schedule's length)."""
        n = len(self.data["train"])
        return sum(self.epochs_per_round * math.ceil((n + k * self.per_round) / self.batch_size)
                   for k in range(self.rounds + 1))

    def round_file(self, k: int) -> Path:
        return self.rounds_dir / f"round{k}.jsonl"

    def adversarial(self, k: int) -> list:
        """Round ``k``'s adversarial examples: read from its file, else found now by attacking
        the trainer's model as it stands, and written there."""
        if k in self.found:
            return self.found[k]
        path = self.round_file(k)
        if path.is_file():
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
            pairs = self.task.inputs == "pair"
            found = [(tuple(r["input"]) if pairs else r["input"], r["gold"]) for r in rows]
        else:
            net = self.trainer.lightning_module.net
            mode = net.training
            try:
                found = attacked(self.victim(net), self.task, self.examples["train"],
                                 self.per_round, self.recipe, self.seed * 1000 + k,
                                 self.progress, f"defend: round {k}")
            finally:
                net.train(mode)
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, "".join(json.dumps({"round": k, "input": x, "gold": g},
                                                  ensure_ascii=False) + "\n"
                                       for x, g in found).encode())
        self.found[k] = found
        return found

    def train_dataloader(self):
        epoch = self.trainer.current_epoch if self.trainer is not None else 0
        items = list(self.data["train"])
        for k in range(1, min(epoch // self.epochs_per_round, self.rounds) + 1):
            if f"round{k}" not in self.data:
                found = self.adversarial(k)
                self.data[f"round{k}"] = self._encode(Examples(
                    [x for x, _ in found], [g for _, g in found], [[] for _ in found]))
            items += self.data[f"round{k}"]
        self.data["train+adversarial"] = items
        return self._loader("train+adversarial", True)


def resume_from(cfg: DictConfig) -> str | None:
    """``ckpt_path``, else (``resume``) the run folder's own ``last.ckpt`` when there is one."""
    if cfg.ckpt_path:
        return str(cfg.ckpt_path)
    last = Path(cfg.out_dir) / "checkpoints" / "last.ckpt"
    return str(last) if cfg.resume and last.is_file() else None


def train(cfg: DictConfig) -> dict:
    """Fit through every round, export the defended victim, reload it as ``defended:DIR`` and
    score it on the test split; returns the metrics (also in ``metrics.json``)."""
    torch.set_num_threads(cfg.threads)
    pl.seed_everything(cfg.seed, workers=True)
    progress = bool(cfg.trainer.get("enable_progress_bar", True))
    data = instantiate(cfg.data, seed=cfg.seed, defense=OmegaConf.to_container(cfg.defense),
                       run_dir=cfg.out_dir, progress=progress)
    started, cpu_started = time.perf_counter(), time.process_time()
    data.setup()
    module = instantiate(cfg.model, _partial_=True, _convert_="all")(
        **data.model_inputs(), planned_steps=data.planned_steps())
    planned = data.planned_epochs()
    trainer, _ = fit_trainer(cfg, use_distributed_sampler=False,
                             max_epochs=cfg.trainer.max_epochs or planned,
                             reload_dataloaders_every_n_epochs=1)
    ckpt = resume_from(cfg)
    trainer.fit(module, data, ckpt_path=ckpt)
    fit_seconds, fit_cpu = time.perf_counter() - started, time.process_time() - cpu_started
    if not trainer.is_global_zero:
        return {}
    # the rounds the trained epochs used (read back when a resumed run had nothing left to fit)
    used = min(max(trainer.current_epoch - 1, 0) // data.epochs_per_round, data.rounds)
    rounds = [{"round": k, "attacked": min(data.per_round, len(data.examples["train"].gold)),
               "found": len(data.adversarial(k)), "file": str(data.round_file(k))}
              for k in range(1, used + 1)]
    out = Path(cfg.defended_dir)
    info = {"config": OmegaConf.to_container(cfg, resolve=True),
            "libraries": library_versions("torch", "pytorch-lightning")}
    module.export(out / HF, info)  # the last weights: the rounds' work, not the best val/acc
    from zeroe_assets import __version__

    train_path = data.paths["train"]
    meta = {"task": data.task.name, "victim": HF, "model": HF, "parts": data.parts,
            "seed": cfg.seed, "copies": 0, "min_count": data.options.get("min_count", 2),
            "anagrams": bool(data.options.get("anagrams", False)),
            "sources": bool(data.options.get("sources", True)),
            "restore": bool(data.options.get("restore", False)), "anchors": data.anchors,
            "merge_below": data.options.get("merge_below", 0), "rounds": len(rounds),
            "planned_rounds": data.rounds, "per_round": data.per_round, "recipe": data.recipe,
            "adversarial_found": sum(r["found"] for r in rounds),
            **shield_fields(data.defense.shield, trained=True),
            "encoder": module.encoder,
            "trained_on": {"file": train_path.name, "sha256": sha256_file(train_path),
                           "examples": len(data.examples["train"].gold),
                           "rows": len(data.data["train"]) + sum(r["found"] for r in rounds)},
            "epochs": trainer.current_epoch, "zeroe_version": __version__}
    save_defense(out, meta, data.counts, data.clusters, None)
    victim = load_defended(out, data.task.name)  # as every command will load it
    test = data.examples["test"]
    predicted = victim.predict(test.inputs)
    score = data.task.score(test.gold, predicted)
    metrics = {"defended": str(out), "resumed_from": ckpt, "epochs": trainer.current_epoch,
               "planned_epochs": planned, "global_step": trainer.global_step,
               "stopped_early": trainer.current_epoch < planned,  # a limit stopped it: resumable
               "threads": cfg.threads, "fit_seconds": round(fit_seconds, 1),
               "fit_cpu_seconds": round(fit_cpu, 1), "rounds": rounds,
               "test": {data.task.metric: round(score, 5)}, "data": data.summary()}
    if data.task.name == "tc":
        metrics["test"]["accuracy"] = round(sum(int(p >= 0.5) == g for p, g in
                                                zip(predicted, test.gold)) / len(test.gold), 5)
    with open(Path(cfg.out_dir) / "metrics.json", "w") as f:
        json.dump(metrics, f, indent=1)
    print(f"exported the defended victim to {out} (--victim defended:{out})")
    return metrics


@hydra.main(version_base="1.3", config_path=CONF, config_name="defend")
@one_line_errors
def main(cfg: DictConfig) -> None:
    metrics = train(cfg)
    if metrics:
        print(json.dumps({"test": metrics["test"], "rounds": metrics["rounds"]}))


if __name__ == "__main__":
    main()

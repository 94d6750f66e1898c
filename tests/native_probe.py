"""Run by test_native_code.py in a subprocess with a fresh NUMBA_CACHE_DIR (overloads loaded
from a cache carry no LLVM IR) and NUMBA_NRT_STATS=1. Compiles the four playout loops, then
prints as JSON what their own compiled bodies call and how many allocations a workload makes."""
import json
import re

import numpy as np
from numba.core.runtime import rtsys

import meldmind
from meldmind.game import game_module
from meldmind.kernels import ai_cardverse, ai_gin, cardverse, gin

PLAYOUTS = {"gin": gin._playout, "cardverse": cardverse._play_randomly,
            "ai_gin": ai_gin.rollout, "ai_cardverse": ai_cardverse._rollout}
PARAMS = {"gin": game_module("gin").make_params(None),
          "cardverse": game_module("cardverse").make_params(None)}
SEARCHES = {"gin": ai_gin, "cardverse": ai_cardverse}
RANDOM_PLAY = {"gin": gin.random_games, "cardverse": cardverse.random_hands}


def allocations(run):
    before = rtsys.get_allocation_stats().alloc
    run()
    return rtsys.get_allocation_stats().alloc - before


def search_run(variant, level, count):
    game = meldmind.new_game(variant, seed=11)
    obs = game_module(variant).observation_array(game.observation(game.to_move))
    actions = game_module(variant).KERNEL.NUM_ACTIONS
    return lambda: SEARCHES[variant].search_serial(obs, level, np.int64(5), 0, count,
                                                   np.zeros(actions), np.zeros(actions, np.int64))


report = {"random": {}, "search": {}, "bodies": {}}
for variant, play in RANDOM_PLAY.items():
    play(PARAMS[variant], np.int64(1), 2)                     # compiles
    report["random"][variant] = [allocations(lambda: play(PARAMS[variant], np.int64(1), n))
                                 for n in (10, 100)]
    for level in (3, 4):                                      # expert, master
        search_run(variant, level, 2)()                       # compiles
        report["search"][f"{variant} {level}"] = [allocations(search_run(variant, level, count))
                                                  for count in (8, 64)]
for module, dispatcher in PLAYOUTS.items():
    name = dispatcher.py_func.__name__
    # the native body itself, not its cpython/cfunc wrappers or its callees
    own = re.compile(rf'^define [^@]*@"?_ZN8meldmind7kernels{len(module)}{module}'
                     rf'{len(name)}{name}B.*?^\}}', re.S | re.M)
    bodies = [m.group(0) for ir in dispatcher.inspect_llvm().values() for m in own.finditer(ir)]
    report["bodies"][f"{module}.{name}"] = [
        {"incref": b.count("@NRT_incref"), "decref": b.count("@NRT_decref"),
         "alloc": len(re.findall(r"@NRT_MemInfo_alloc", b)),
         "python": sorted(set(re.findall(r"@(_?Py\w+)", b)))} for b in bodies]
print(json.dumps(report))

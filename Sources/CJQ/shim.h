// libjq (Debian's libjq-dev, jq 1.6): the jq language in process, for `--jq EXPR`. It ships no
// pkg-config file, so the module map links "jq" itself. TimbreJQ's one type owns every jq_state
// and jv this library hands out.
#ifndef TIMBRE_CJQ_SHIM_H
#define TIMBRE_CJQ_SHIM_H

#include <jq.h>
#include <jv.h>

#endif

/*
 * reading.h - how a match reads its rule set: the edition it was recorded
 * under and the options that choose between readings of the text.
 *
 * DESIGN: a rule set may correct a reading or change a default.  A match
 * already recorded must replay exactly as it was judged, so the recorder
 * writes the rule set's edition into every open event and a rule set
 * keeps reading its older editions with their old readings.  The list of
 * editions a rule set reads is its own (newest first); the match layer
 * only passes the recorded edition on.  Where the text leaves a choice to
 * the table, a match option names the reading; its default may depend on
 * the edition, so that an old record without the option reads as before.
 */
#ifndef ARB_RULES_READING_H
#define ARB_RULES_READING_H

#include "core/event.h"
#include "core/rules.h"

/* Which of editions[0..n) the setup names: 0 when it names none or the
 * newest, i for editions[i].  ARB_EUNSUPP with the verdict (rule "open")
 * for an edition the rule set does not read. */
int arb_rules_edition(const arb_setup_t *s, const char *const *editions,
                      int n, arb_verdict_t *v);

/* The value of option `key` as an index into values[0..n) (dflt when the
 * setup does not give it), or ARB_EINVAL with a verdict (rule "setup")
 * listing the values. */
int arb_rules_choice(const arb_setup_t *s, const char *key,
                     const char *const *values, int n, int dflt, int *out,
                     arb_verdict_t *v);

#endif

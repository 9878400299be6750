/* pager.h - the end screen with a USB keyboard (issue 17): l shows the whole text log, t the results as tables, s the summary again; PgUp/PgDn (space, b), Up/Down (j, k), Home/End (g) move. Without a screen or a keyboard on the stick's controller, the summary stays as it is. */
#ifndef QB_KERNEL_PAGER_H
#define QB_KERNEL_PAGER_H

#include <stdbool.h>

/* After the run, with the summary (and banner, ok) on screen: page with the
 * keyboard until the machine is turned off. Returns at once when there is
 * no screen or no keyboard, or when the keyboard goes away. The keyboard is
 * polled every few ms with the TSC: interrupts stay off. */
void pager_run(bool ok, const char *banner);

#endif

// The graph for screen readers (and the end-to-end tests, which read the app
// as one does): the canvas's accessible children are the device regions and
// the nodes in sight, each with its words ("%16 ← #2 embedding"), where it is
// drawn (its region, in the description) and its place on the screen. The
// canvas's own description says what is selected (GraphView). The legend's
// children are its entries where its rows put them.
#pragma once

namespace ptescope::ui {

// Installs the accessibility factory that gives GraphCanvas its interface;
// once per process (GraphView does it).
void installGraphAccessibility();

}  // namespace ptescope::ui

// What the user is looking at: the document's current method and, in it,
// the selected instruction (a copy is an instruction) or value. Views
// publish what the user picks here and follow what the selection says; the
// main window connects each view to this object, never one view to another.
//
// Publishing never loops: while the selection tells its followers about a
// change, a publish made by one of them (a table whose current row was set
// by following) is ignored, and every signal names the view that published
// (its `source`) so that view does not apply its own pick again.
//
// The method: one methodChanged() per open, reload, edit or switch of method
// (the document says "program changed" for the first three and "current
// method changed" for a switch), after which the selection is empty.
#pragma once

#include <QObject>

#include <cstddef>
#include <cstdint>
#include <optional>

namespace ptescope::ui {

class Document;

class Selection : public QObject {
  Q_OBJECT
 public:
  explicit Selection(Document* document, QObject* parent = nullptr);

  int method() const { return method_; }
  std::optional<size_t> instruction() const { return instruction_; }
  std::optional<int32_t> value() const { return value_; }

  // Publish. `source` is the view the pick comes from (null: from code, so
  // every follower applies it). False when ignored: published by a follower
  // while a change is being told.
  bool selectInstruction(size_t instruction, const QObject* source = nullptr);
  bool selectValue(int32_t value, const QObject* source = nullptr);
  bool clear(const QObject* source = nullptr);
  // Shows another method (through the document, which says so back).
  void selectMethod(int method);

  // Whether a change is being told to the followers right now.
  bool publishing() const { return publishing_; }

 signals:
  // The method on screen is new or has new contents (`newProgram`: another
  // program, a reload or an edit; else a switch of method). Views of the
  // method rebuild here, once.
  void methodChanged(int method, bool newProgram);
  void instructionSelected(size_t instruction, const QObject* source);
  void valueSelected(int32_t value, const QObject* source);
  void cleared(const QObject* source);

 private:
  void followDocument(bool newProgram);
  // Runs `tell` with publishing_ set; false (and nothing told) when already set.
  template <class Tell>
  bool publish(Tell tell);

  Document* document_;
  int method_ = -1;
  std::optional<size_t> instruction_;
  std::optional<int32_t> value_;
  bool publishing_ = false;
};

}  // namespace ptescope::ui

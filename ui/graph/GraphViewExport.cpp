// GraphView: the whole graph as SVG or PNG, with a header (method name and
// legend), saved atomically.
#include "ui/graph/GraphView.h"

#include <QBuffer>
#include <QGraphicsScene>
#include <QImage>
#include <QImageWriter>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLegend.h"
#include "util/MappedFile.h"

namespace ptescope::ui {

using layout::NodeKind;

namespace {

// Height of the exported picture's header (method name and legend).
constexpr double kExportHeader = 36;

QFont exportTitleFont() { return graphFont(14, true); }

}  // namespace

std::optional<QSizeF> GraphView::exportSize(QString* error) const {
  if (!layout_) {
    if (error) *error = tr("There is no graph to export");
    return std::nullopt;
  }
  const QRectF source = scene_->sceneRect();
  const QString title = tr("method '%1'").arg(QString::fromStdString(layout_->model.method_name));
  const double header = 12 + QFontMetricsF(exportTitleFont()).horizontalAdvance(title) + 24 +
                        paintLegend(nullptr, QPointF(), legendEntries(layout_->model, overlayLegendText(), overlayWithoutMeasurements(), overlayLegendNote()), true).width() + 12;
  return QSizeF(std::max(source.width(), header), source.height() + kExportHeader);
}

void GraphView::paintExport(QPainter& painter, const QSizeF& size) {
  const QRectF source = scene_->sceneRect();
  painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  const QFont font = exportTitleFont();
  painter.setFont(font);
  painter.setPen(QColor(0x22, 0x22, 0x22));
  const QString title = tr("method '%1'").arg(QString::fromStdString(layout_->model.method_name));
  const double titleWidth = QFontMetricsF(font).horizontalAdvance(title) + 24;
  painter.drawText(QRectF(12, 0, titleWidth, kExportHeader), Qt::AlignVCenter, title);
  paintLegend(&painter, QPointF(12 + titleWidth, (kExportHeader - 18) / 2), legendEntries(layout_->model, overlayLegendText(), overlayWithoutMeasurements(), overlayLegendNote()), true);
  // Exports show everything in full detail, whatever the zoom on screen:
  // the painter's scale decides the level of detail, and it is >= 1 here.
  const QRectF target((size.width() - source.width()) / 2, kExportHeader, source.width(), source.height());
  scene_->render(&painter, target, source);
}

namespace {

bool saveBytes(const QString& path, const QByteArray& bytes, QString* error) {
  if (bytes.isEmpty()) {
    if (error) *error = QObject::tr("Cannot write %1").arg(path);
    return false;
  }
  auto written = writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
  if (!written) {
    if (error) *error = QString::fromStdString(written.error().message);
    return false;
  }
  return true;
}

}  // namespace

bool GraphView::exportSvg(const QString& path, QString* error) {
  const auto sized = exportSize(error);
  if (!sized) return false;
  const QSizeF size = *sized;
  // Drawn into memory, then saved like every other file (atomically, mode
  // kept, symlinks written through).
  QBuffer svgBytes;
  svgBytes.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&svgBytes);
  svg.setSize(QSize(int(std::ceil(size.width())), int(std::ceil(size.height()))));
  svg.setViewBox(QRectF(QPointF(0, 0), size));
  svg.setTitle(QString::fromStdString("ptescope: method '" + layout_->model.method_name + "'"));
  svg.setDescription(tr("Graph of an ExecuTorch method with device placement and transfers, made by ptescope"));
  QPainter painter;
  if (!painter.begin(&svg)) {
    if (error) *error = tr("Cannot write %1").arg(path);
    return false;
  }
  painter.setRenderHint(QPainter::Antialiasing);
  paintExport(painter, size);
  painter.end();
  return saveBytes(path, svgBytes.data(), error);
}

bool GraphView::exportPng(const QString& path, QString* error, double scale) {
  const auto sized = exportSize(error);
  if (!sized) return false;
  const QSizeF size = *sized;
  const double width = size.width(), height = size.height();
  // PNG exports stay under these, whatever the scale asked for.
  constexpr double kMaxImageSide = 16000, kMaxImagePixels = 160e6;
  scale = std::min({scale, kMaxImageSide / width, kMaxImageSide / height, std::sqrt(kMaxImagePixels / (width * height))});
  QImage image(QSize(std::max(1, int(width * scale)), std::max(1, int(height * scale))), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) {
    if (error) *error = tr("Not enough memory for a %1 x %2 image").arg(int(width * scale)).arg(int(height * scale));
    return false;
  }
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    painter.scale(scale, scale);
    paintExport(painter, size);
  }
  QBuffer pngBytes;
  pngBytes.open(QIODevice::WriteOnly);
  QImageWriter writer(&pngBytes, "png");
  if (!writer.write(image)) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, writer.errorString());
    return false;
  }
  return saveBytes(path, pngBytes.data(), error);
}

}  // namespace ptescope::ui

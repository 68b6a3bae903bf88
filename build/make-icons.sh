#!/usr/bin/env bash
# Regenerates the app icons from icon.svg (run it after changing the drawing; the outputs are
# committed so `npm run dist` needs none of these tools). Needs rsvg-convert (librsvg2-bin),
# ImageMagick (for the .ico) and png2icns (icnsutils): `apt-get install librsvg2-bin imagemagick icnsutils`.
#   icon.png      1024 px, the source electron-builder falls back on
#   icon.icns     macOS (16 … 1024 px)
#   icon.ico      Windows (16 … 256 px)
#   icons/NxN.png Linux (the AppImage and the deb's hicolor theme)
set -euo pipefail
cd "$(dirname "$0")"
IMAGEMAGICK="${IMAGEMAGICK:-$(command -v magick || command -v convert)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

render() { rsvg-convert --width "$1" --height "$1" icon.svg --output "$2"; }

render 1024 icon.png
rm -rf icons && mkdir icons
for size in 16 32 48 64 128 256 512; do render "$size" "icons/${size}x${size}.png"; done

for size in 16 32 48 128 256 512 1024; do render "$size" "$work/icns-$size.png"; done
png2icns icon.icns "$work"/icns-{16,32,48,128,256,512,1024}.png >/dev/null

for size in 16 24 32 48 64 128 256; do render "$size" "$work/ico-$size.png"; done
"$IMAGEMAGICK" "$work"/ico-{16,24,32,48,64,128,256}.png icon.ico

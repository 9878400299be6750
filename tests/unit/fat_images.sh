#!/bin/sh
# fat_images.sh DIR - the FAT images test_fat reads, made by mkfs.fat and mtools as a user's own tools
# would make and change them. DIR already holds the files to copy in (test_fat writes them): log.bin and
# prev.bin (64 KiB, every 512-byte block saying which file and block it is), short.bin (log.bin's first
# 32 KiB) and small.bin (8 KiB).
#
#   fat12.img fat16.img fat32.img fat16-4k.img   /quietbench/results.log and results.prev, each one run
#                      (fat32.img: 512-byte clusters, 40 files first, so /quietbench spans clusters, and a
#                      33 MiB file before the results files, so their cluster numbers need 17 bits;
#                      fat16-4k.img: 4096-byte sectors, as tools/mkimage --sector-size 4096 makes)
#   frag.img           results.log in two pieces (the first file's freed clusters, then after another)
#   trunc.img          fat16.img with results.log saved again shorter (its first cluster stays put)
#   moved.img          fat16.img with results.log copied, the original deleted, the copy renamed back
set -eu
d=$1
export MTOOLS_SKIP_CHECK=1

fmt() { # image, size in KiB, mkfs.fat options...
	img=$d/$1 size=$2
	shift 2
	rm -f "$img"
	mkfs.fat -C "$@" "$img" "$size" >/dev/null
	mmd -i "$img" ::/quietbench
}
put() { # image, file in DIR, name in /quietbench
	mcopy -o -i "$d/$1" "$d/$2" "::/quietbench/$3"
}

fmt fat12.img 1024 -F 12
fmt fat16.img 16384 -F 16
fmt fat32.img 40960 -F 32 -s 1
fmt fat16-4k.img 40960 -F 16 -S 4096 -s 1
for i in 00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do
	put fat32.img small.bin "f$i"
	put fat32.img small.bin "a-longer-name-number-$i.txt"
done
dd if=/dev/zero of="$d/filler.bin" bs=1M count=33 2>/dev/null
mcopy -i "$d/fat32.img" "$d/filler.bin" ::/filler.bin
rm -f "$d/filler.bin"
for img in fat12.img fat16.img fat32.img fat16-4k.img; do
	put $img log.bin results.log
	put $img prev.bin results.prev
	put $img small.bin a-file-with-a-long-name.txt
done

fmt frag.img 16384 -F 16
put frag.img small.bin a.bin
put frag.img small.bin b.bin
mdel -i "$d/frag.img" ::/quietbench/a.bin
put frag.img log.bin results.log

cp "$d/fat16.img" "$d/trunc.img"
put trunc.img short.bin results.log

cp "$d/fat16.img" "$d/moved.img"
mcopy -i "$d/moved.img" ::/quietbench/results.log ::/quietbench/copy.log
mdel -i "$d/moved.img" ::/quietbench/results.log
mren -i "$d/moved.img" ::/quietbench/copy.log ::/quietbench/results.log

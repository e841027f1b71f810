// GENERATED FILE - DO NOT EDIT.
// The text of ../shared/fixtures/uti-hierarchy.tsv (80 UTIs from Apple's UTCoreTypes), embedded so the
// module needs no resource bundle. Regenerate from the package root with:
//   { sed -n 1,8p Sources/MAMExtensions/UTIHierarchyTable.generated.swift; cat ../shared/fixtures/uti-hierarchy.tsv; printf '"""#\n'; } > /tmp/t.swift && mv /tmp/t.swift Sources/MAMExtensions/UTIHierarchyTable.generated.swift
// (the first 8 lines are this header). The test `embeddedUTITableMatchesTheFixture` fails when it is stale.

/// Tab-separated: uti, direct parents (comma-separated), filename extensions, MIME types.
let embeddedUTIHierarchyTSV = #"""
uti	direct_parents	extensions	mime_types
public.item			
public.content			
public.composite-content	public.content		
public.data	public.item		application/octet-stream
public.directory	public.item		
public.folder	public.directory		
com.apple.package	public.directory		
com.apple.bundle	public.directory		
public.archive			
public.text	public.data,public.content		
public.plain-text	public.text	txt,text	text/plain
public.utf8-plain-text	public.plain-text		
public.utf16-plain-text	public.plain-text		
public.utf16-external-plain-text	public.plain-text		
public.rtf	public.text	rtf	text/rtf
public.html	public.text	html,htm,shtml,shtm	text/html
public.xml	public.text	xml	application/xml,text/xml
public.json	public.text	json	application/json
public.source-code	public.plain-text		
public.delimited-values-text	public.text		
public.comma-separated-values-text	public.plain-text,public.delimited-values-text	csv	text/csv,text/comma-separated-values
public.tab-separated-values-text	public.plain-text,public.delimited-values-text	tsv	text/tab-separated-values
public.url	public.data		
public.file-url	public.url		
public.image	public.data,public.content		
public.jpeg	public.image	jpeg,jpg,jpe	image/jpeg,image/jpg
public.png	public.image	png	image/png
public.tiff	public.image	tiff,tif	image/tiff
com.compuserve.gif	public.image	gif	image/gif
public.heif-standard	public.image		
public.heic	public.heif-standard	heic	image/heic
public.heif	public.heif-standard	heif,hif	image/heif
com.microsoft.bmp	public.image	bmp,dib	image/bmp
public.svg-image	public.image,public.xml	svg,svgz	image/svg+xml
public.jpeg-2000	public.image	jp2,jpf,jpx,j2k,j2c	image/jp2
org.webmproject.webp	public.image	webp	image/webp
public.camera-raw-image	public.image		
public.audiovisual-content	public.data,public.content		
public.movie	public.audiovisual-content		
public.video	public.movie		
public.audio	public.audiovisual-content		
com.apple.quicktime-movie	public.movie	mov,qt	video/quicktime
public.mpeg-4	public.movie	mp4,mpg4	video/mp4,video/mp4v-es
public.mpeg	public.movie	mpg,mpeg,mpe,m75,m15	video/mpeg,video/mpg,video/x-mpeg,video/x-mpg
public.avi	public.movie	avi,vfw	video/avi,video/msvideo,video/x-msvideo
public.mpeg-2-transport-stream	public.movie	ts	
com.apple.m4v-video	public.mpeg-4	m4v	video/x-m4v
public.mp3	public.audio	mp3,mpga	audio/mpeg,audio/mpeg3,audio/mpg,audio/mp3,audio/x-mpeg,audio/x-mpeg3,audio/x-mpg,audio/x-mp3
public.mpeg-4-audio	public.audio	mp4,mpg4	audio/mp4,audio/mp4a-latm
com.apple.m4a-audio	public.mpeg-4-audio	m4a	audio/x-m4a
com.microsoft.waveform-audio	public.audio	wav,wave,bwf	audio/vnd.wave,audio/wav,audio/wave,audio/x-wav
public.aifc-audio	public.audio	aifc	
public.aiff-audio	public.aifc-audio	aiff,aif	audio/aiff,audio/x-aiff
com.adobe.pdf	public.data,public.composite-content	pdf	application/pdf
com.pkware.zip-archive	public.data,public.archive		
public.zip-archive	com.pkware.zip-archive	zip	application/zip,application/x-zip-compressed
org.gnu.gnu-zip-archive	public.data,public.archive	gz,gzip	application/x-gzip,application/gzip
public.spreadsheet	public.content		
public.presentation	public.composite-content		
public.contact			
public.vcard	public.text,public.contact	vcf,vcard	text/vcard,text/directory,text/x-vcard
public.message			
public.email-message	public.message		
public.calendar-event			
com.apple.ical.ics	public.text,public.item,public.calendar-event	ics	text/calendar
com.apple.property-list	public.data	plist	
com.apple.webarchive	public.data,public.composite-content	webarchive	application/x-webarchive
com.apple.rtfd	com.apple.package,public.composite-content	rtfd	
com.apple.flat-rtfd	public.data,public.composite-content		
com.apple.pkpass	com.apple.bundle,com.apple.package	pkpass	application/vnd.apple.pkpass
org.openxmlformats.openxml	public.data		
com.microsoft.word.doc	public.data,public.composite-content	doc	application/msword
org.openxmlformats.wordprocessingml.document	org.openxmlformats.openxml,public.composite-content	docx	application/vnd.openxmlformats-officedocument.wordprocessingml.document
com.microsoft.excel.xls	public.data,public.composite-content,public.spreadsheet	xls	application/vnd.ms-excel,application/msexcel
org.openxmlformats.spreadsheetml.sheet	org.openxmlformats.openxml,public.composite-content,public.spreadsheet	xlsx	application/vnd.openxmlformats-officedocument.spreadsheetml.sheet
com.microsoft.powerpoint.ppt	public.data,public.presentation	ppt	application/vnd.ms-powerpoint,application/mspowerpoint
org.openxmlformats.presentationml.presentation	org.openxmlformats.openxml,public.presentation	pptx	application/vnd.openxmlformats-officedocument.presentationml.presentation
org.oasis-open.opendocument.text	org.oasis-open.opendocument,public.composite-content	odt	application/vnd.oasis.opendocument.text
org.idpf.epub-container	public.data,public.composite-content	epub	application/epub+zip
com.apple.active-webpage	(undeclared in dump; system adds it for http(s) URL attachments when the item userInfo has supportsJavaScript=YES)		
"""#

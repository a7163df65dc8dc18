import BlobStoreCLI

BlobStoreCLI.main()

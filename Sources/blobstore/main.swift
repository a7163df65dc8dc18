import BlobStoreCLI
BlobStoreCLI.main()
